import { InputRejectedError } from '../errors/execution-errors.js';

/**
 * Throws `InputRejectedError('input_too_deep')` naming the first path nested deeper than
 * `maxDepth` arrays/objects (the root counts as depth 1). Iterative, so a hostile document
 * can never exhaust the call stack here, whatever its depth.
 */
export function checkDepth(value: unknown, maxDepth: number, rootPath: string): void {
  const stack: Array<{ value: unknown; depth: number; path: string }> = [
    { value, depth: 1, path: rootPath },
  ];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item.value !== 'object' || item.value === null) continue;
    if (item.depth > maxDepth) {
      throw new InputRejectedError(
        'input_too_deep',
        item.path,
        `${item.path || 'the value'} is nested more than ${maxDepth} levels deep`,
      );
    }
    if (Array.isArray(item.value)) {
      const items = item.value as unknown[];
      for (let i = 0; i < items.length; i++)
        stack.push({ value: items[i], depth: item.depth + 1, path: `${item.path}[${i}]` });
    } else if (isWalkable(item.value)) {
      for (const [key, child] of Object.entries(item.value))
        stack.push({
          value: child,
          depth: item.depth + 1,
          path: item.path === '' ? key : `${item.path}.${key}`,
        });
    }
  }
}

/** Plain and null-prototype objects are walked; Dates, Maps, buffers are leaves here. */
function isWalkable(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Parses JSON text that may come from anyone: nesting is checked on the text first (a
 * bracket counter that skips strings), because `JSON.parse` itself recurses and a deep enough
 * document overflows the stack.
 */
export function parseJsonWithDepth(text: string, maxDepth: number, rootPath: string): unknown {
  checkTextDepth(text, maxDepth, rootPath);
  return JSON.parse(text) as unknown;
}

/** The nesting of JSON-like text (brackets outside strings), checked without parsing it. */
export function checkTextDepth(text: string, maxDepth: number, rootPath: string): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) {
        throw new InputRejectedError(
          'input_too_deep',
          rootPath,
          `${rootPath} is nested more than ${maxDepth} levels deep (at character ${i})`,
        );
      }
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
}
