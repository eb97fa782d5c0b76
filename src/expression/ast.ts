/** The expression AST of docs/flow-format.md §5.3. Nodes are plain frozen data; compile.ts turns them into closures. */

export type Expr = LiteralExpr | PathExpr | CallExpr;

export interface LiteralExpr {
  readonly type: 'literal';
  readonly value: string | number | boolean | null;
}

/** `$INPUT.a[0]`: `root` is the root as written (`"$INPUT"`), field names as written. */
export interface PathExpr {
  readonly type: 'path';
  readonly root: string;
  readonly segments: readonly Segment[];
}

export type Segment =
  | { readonly type: 'field'; readonly name: string }
  | { readonly type: 'index'; readonly index: number };

export interface CallExpr {
  readonly type: 'call';
  readonly name: string;
  readonly args: readonly Expr[];
}

/** A parsed template: literal text runs and `{% … %}` slots, in order. */
export type TemplatePart = string | Expr;
