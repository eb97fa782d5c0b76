import type { Command } from 'commander';
import { FlowDefinitionError } from '../../errors/flow-definition-errors.js';
import { analyzeDocument } from '../../flow/analysis/analyze-document.js';
import { type FlowIssue, hasErrors } from '../../flow/analysis/flow-issue.js';
import { readDocumentFile } from '../../flow/parse-document.js';
import { loadFlowDocument } from '../../flow/load-flow.js';
import { type NodeReplayView, replayView } from '../../flow/analysis/replayability.js';
import type { CommandContext } from '../command-context.js';
import { EXIT } from '../exit-codes.js';
import { cliPlugins } from '../flow-args.js';
import { issueText } from '../issue-text.js';

/**
 * `plaita validate`: loads the document as `run` would, then analyses it for what would fail
 * at run time (docs/validate.md). Errors exit 2; warnings too with `--strict`.
 */
export function registerValidate(program: Command, context: CommandContext): void {
  program
    .command('validate')
    .description(
      'check a flow for everything that would fail at run time; every issue with its path (exit 2 on an error, or on a warning with --strict)',
    )
    .argument('<flow-file>', 'flow document (.json, .yaml, .yml)')
    .option(
      '--strict',
      'warnings fail too (exit 2; PLAITA_STRICT=1)',
      process.env.PLAITA_STRICT === '1',
    )
    .option(
      '--nodes <modules>',
      'comma-separated plugin modules to load: node types and $F functions (also PLAITA_NODE_MODULES)',
    )
    .action(async (file: string, opts: { nodes?: string; strict?: boolean }) => {
      const out = context.output();
      const { registry, functions } = await cliPlugins(opts.nodes);
      let document: unknown;
      let issues: FlowIssue[];
      try {
        document = await readDocumentFile(file);
        issues = await analyzeDocument(document, { registry, functions });
      } catch (error) {
        if (!(error instanceof FlowDefinitionError)) throw error;
        // A file that cannot be read or parsed is an invalid flow too: the same report, in text
        // and in --json, as any other invalid flow.
        issues = error.issues.map((issue) => ({
          severity: 'error' as const,
          code: 'definition_error' as const,
          path: issue.path,
          nodeId: null,
          message: issue.message,
        }));
      }
      const errors = issues.filter((i) => i.severity === 'error').length;
      const warnings = issues.length - errors;
      const failed = hasErrors(issues) || (opts.strict === true && warnings > 0);
      const nodes = hasErrors(issues)
        ? null
        : replayView(loadFlowDocument(document, { registry }), functions);
      const summary = failed
        ? `${file}: invalid (${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'})`
        : `${file}: valid${warnings > 0 ? ` (${warnings} warning${warnings === 1 ? '' : 's'})` : ''}`;
      const text = [
        summary,
        ...issues.map((issue) => indent(issueText(issue, document))),
        ...(nodes ? replayLines(nodes) : []),
      ].join('\n');
      // A failing report goes to stderr, like every other failure; --json keeps stdout.
      if (failed && !out.json) out.note(text);
      else
        out.result({ valid: !failed, errors, warnings, issues, ...(nodes ? { nodes } : {}) }, text);
      context.exit(failed ? EXIT.usage : EXIT.ok);
    });
}

/**
 * What a retry or replay runs again: an effectful node's result is stored before the next node
 * runs; a replayable one's may be recomputed after a crash (docs/durable-runtime.md).
 */
function replayLines(nodes: readonly NodeReplayView[]): string[] {
  const replayable = nodes.filter((n) => n.replayable).map((n) => n.nodeId);
  const effectful = nodes.filter((n) => !n.replayable);
  return [
    `  replayable (recomputed after a crash): ${replayable.length > 0 ? replayable.join(', ') : 'none'}`,
    `  effectful (stored before the next node runs): ${effectful.length > 0 ? '' : 'none'}`,
    ...effectful.map((n) => `    ${n.nodeId}: ${n.reason ?? ''}`),
  ];
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
