import type { Expr } from '../../expression/ast.js';
import { ExpressionError } from '../../errors/expression-errors.js';
import type { FunctionRegistry } from '../../expression/function-registry.js';
import { looksLikeOtherTemplateLanguage } from '../../expression/other-template-language.js';
import { parseExpression, parseSlot } from '../../expression/parser.js';
import { classifyString } from '../../expression/string-kind.js';
import { isPlainObject } from '../../expression/value-kind.js';
import { closestName } from './closest-name.js';
import type { EvaluatedSite } from './evaluated-sites.js';
import type { FlowIssue, IssueCode, IssueSeverity } from './flow-issue.js';
import { pathTo } from './flow-scope.js';

/** The roots every execution context has (docs/flow-format.md §5.4; `$FLOW` is the alias of `$FLOW_ID`). */
const CONTEXT_ROOTS = [
  '$INPUT',
  '$NODE',
  '$GLOBAL',
  '$PARENT',
  '$ENV',
  '$FLOW_ID',
  '$FLOW',
  '$EXECUTION_ID',
  '$LAST_NODE',
  '$BRANCH',
  '$VISITS',
];

/** A field named like a root is read as that root (§5.5): `$NODE.INPUT` is not node `INPUT`. */
const ROOT_FIELDS: ReadonlySet<string> = new Set(['INPUT', 'NODE', 'PARENT', 'GLOBAL', 'ENV']);

/** Evaluated data nests no deeper than the loader allows; this only bounds a malformed value. */
const MAX_WALK_DEPTH = 256;

/** A `$NODE.<id>` or `$ENV.<NAME>` read, checked once the whole flow has been seen. */
export interface RootRead {
  readonly name: string;
  readonly path: string;
}

/**
 * Checks the strings a node evaluates, the way program.ts would compile them: whole
 * expressions must parse (§5.2 rule 1), template slots that do not parse stay verbatim, and
 * every `$F` call and root must exist. Collects `$NODE`/`$ENV` reads for the flow-level checks.
 */
export class ExpressionChecker {
  readonly nodeReads: RootRead[] = [];
  readonly envReads: RootRead[] = [];
  /** Every `$F` function called, registered or not. */
  readonly calls = new Set<string>();
  /** `$ENV` is read, as a whole or by name. */
  readsEnv = false;

  constructor(
    private readonly functions: FunctionRegistry,
    private readonly nodeId: string,
    private readonly issues: FlowIssue[],
  ) {}

  checkSite(site: EvaluatedSite): void {
    if (site.mode === 'service') {
      if (typeof site.value === 'string') this.expression(site.value, site.path, site);
    } else this.walk(site.value, site.path, site, 0);
  }

  /** §5.1: arrays and plain objects are walked (keys never evaluated); string leaves checked. */
  private walk(value: unknown, path: string, site: EvaluatedSite, depth: number): void {
    if (depth > MAX_WALK_DEPTH) return;
    if (typeof value === 'string') this.string(value, path, site);
    else if (Array.isArray(value))
      value.forEach((item: unknown, i) => this.walk(item, pathTo(path, i), site, depth + 1));
    else if (isPlainObject(value))
      for (const key of Object.keys(value))
        this.walk(value[key], pathTo(path, key), site, depth + 1);
  }

  private string(text: string, path: string, site: EvaluatedSite): void {
    switch (classifyString(text)) {
      case 'expression':
        return this.expression(text, path, site);
      case 'template':
        return this.template(text, path, site);
      case 'literal':
        if (looksLikeOtherTemplateLanguage(text))
          this.report('warning', 'foreign_template_syntax', path, {
            message:
              'this text looks like a template of another language and is kept as literal text; ' +
              'plaita expressions look like $INPUT.x or $F.name(...), and {% ... %} inserts one into text',
          });
    }
  }

  private expression(text: string, path: string, site: EvaluatedSite): void {
    let expr: Expr;
    try {
      expr = parseExpression(text);
    } catch (error) {
      this.parseFailure(error, path, site);
      return;
    }
    this.visit(expr, path, site);
  }

  /** Mirrors parseTemplate: a `{%` that does not open a slot stays text; scanning goes on. */
  private template(text: string, path: string, site: EvaluatedSite): void {
    let from = 0;
    let reported = false;
    for (;;) {
      const open = text.indexOf('{%', from);
      if (open < 0) return;
      let slot: ReturnType<typeof parseSlot>;
      try {
        slot = parseSlot(text, open);
      } catch (error) {
        this.parseFailure(error, path, site);
        return;
      }
      if (slot === undefined) {
        // One report per string: a stray `{%` often leaves several behind it.
        if (!reported)
          this.report('warning', 'template_slot_not_parsed', path, {
            message:
              `the "{%" at column ${open + 1} does not open a slot that parses ` +
              '("{% expr %}" with a $ path, a $F call or a literal): it is kept as text',
            column: open + 1,
          });
        reported = true;
        from = open + 1;
        continue;
      }
      this.visit(slot.expr, path, site);
      from = slot.end;
    }
  }

  private parseFailure(error: unknown, path: string, site: EvaluatedSite): void {
    const message = error instanceof Error ? error.message : String(error);
    const position = error instanceof ExpressionError ? error.position : null;
    const service = site.mode === 'service';
    this.report(service ? 'warning' : 'error', 'expression_parse_error', path, {
      message: service ? `${message} The node keeps the raw text instead.` : message,
      ...(position === null ? {} : { column: position + 1 }),
    });
  }

  private visit(expr: Expr, path: string, site: EvaluatedSite): void {
    switch (expr.type) {
      case 'literal':
        return;
      case 'call':
        this.calls.add(expr.name);
        this.call(expr.name, expr.args.length, path, site);
        for (const arg of expr.args) this.visit(arg, path, site);
        return;
      case 'path':
        if (expr.root === '$ENV') this.readsEnv = true;
        this.root(expr.root, path, site);
        if (expr.segments[0]?.type === 'field' && !ROOT_FIELDS.has(expr.segments[0].name)) {
          const read = { name: expr.segments[0].name, path };
          if (expr.root === '$NODE') this.nodeReads.push(read);
          else if (expr.root === '$ENV') this.envReads.push(read);
        }
    }
  }

  private call(name: string, count: number, path: string, site: EvaluatedSite): void {
    const registered = this.functions.get(name);
    if (registered === undefined) {
      const suggestions = this.functions.suggest(name);
      const hint =
        suggestions.length > 0
          ? `; did you mean ${suggestions.map((s) => `$F.${s}`).join(', ')}?`
          : '; no registered function has a similar name';
      this.report('warning', 'unknown_function', path, {
        message: `unknown function $F.${name}${hint} (it fails when evaluated unless the host registers it)`,
        ...(suggestions[0] === undefined ? {} : { suggestion: suggestions[0] }),
      });
      return;
    }
    const min = registered.minArgs ?? 0;
    const max = registered.maxArgs ?? Infinity;
    if (count >= min && count <= max) return;
    const wanted =
      min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
    this.report(site.mode === 'service' ? 'warning' : 'error', 'wrong_argument_count', path, {
      message: `$F.${name} takes ${wanted} argument${max === 1 ? '' : 's'}, got ${count}`,
    });
  }

  private root(root: string, path: string, site: EvaluatedSite): void {
    if (CONTEXT_ROOTS.includes(root) || site.extraRoots.includes(root)) return;
    const known = [...CONTEXT_ROOTS, ...site.extraRoots];
    const suggestion = closestName(root, known);
    this.report('warning', 'unknown_root', path, {
      message:
        `unknown root ${root}: evaluating it fails (roots here: ${known.join(', ')})` +
        (suggestion === undefined ? '' : `; did you mean ${suggestion}?`),
      ...(suggestion === undefined ? {} : { suggestion }),
    });
  }

  private report(
    severity: IssueSeverity,
    code: IssueCode,
    path: string,
    details: { message: string; suggestion?: string; column?: number },
  ): void {
    this.issues.push({ severity, code, path, nodeId: this.nodeId, ...details });
  }
}
