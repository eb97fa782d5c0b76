/**
 * A stricter deep equality than `toStrictEqual`, for codec round trips: same prototype at every
 * level, `Object.is` on numbers (`-0`, `NaN`), Map and Set order, Set members compared
 * pairwise, array holes, key order, and the exact bytes of binary values.
 * Returns where the first difference is, or undefined when there is none.
 */
export function findDifference(actual: unknown, expected: unknown, path = '$'): string | undefined {
  if (
    typeof actual !== 'object' ||
    actual === null ||
    typeof expected !== 'object' ||
    expected === null
  ) {
    return Object.is(actual, expected)
      ? undefined
      : `${path}: ${show(actual)} is not ${show(expected)}`;
  }
  if (Object.getPrototypeOf(actual) !== Object.getPrototypeOf(expected)) {
    return `${path}: ${kind(actual)} is not ${kind(expected)}`;
  }
  return compareObjects(actual, expected, path);
}

function compareObjects(actual: object, expected: object, path: string): string | undefined {
  if (expected instanceof Date)
    return compareLeaf((actual as Date).getTime(), expected.getTime(), path);
  if (expected instanceof RegExp)
    return compareLeaf(regExpText(actual as RegExp), regExpText(expected), path);
  if (expected instanceof ArrayBuffer)
    return compareBytes(new Uint8Array(actual as ArrayBuffer), new Uint8Array(expected), path);
  if (ArrayBuffer.isView(expected))
    return compareBytes(bytesOf(actual as ArrayBufferView), bytesOf(expected), path);
  if (expected instanceof Set)
    return compareSequences([...(actual as Set<unknown>)], [...expected], `${path}<set>`);
  if (expected instanceof Map) {
    return compareSequences(
      [...(actual as Map<unknown, unknown>)],
      [...expected],
      `${path}<map entries>`,
    );
  }
  if (Array.isArray(expected)) return compareSequences(actual as unknown[], expected, path);
  return compareProperties(
    actual as Record<string, unknown>,
    expected as Record<string, unknown>,
    path,
  );
}

function compareLeaf(actual: unknown, expected: unknown, path: string): string | undefined {
  return Object.is(actual, expected)
    ? undefined
    : `${path}: ${show(actual)} is not ${show(expected)}`;
}

function regExpText(re: RegExp): string {
  return `/${re.source}/${re.flags}`;
}

function bytesOf(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

function compareBytes(actual: Uint8Array, expected: Uint8Array, path: string): string | undefined {
  const same = actual.length === expected.length && actual.every((byte, i) => byte === expected[i]);
  return same ? undefined : `${path}: bytes [${actual.join(',')}] are not [${expected.join(',')}]`;
}

function compareSequences(
  actual: readonly unknown[],
  expected: readonly unknown[],
  path: string,
): string | undefined {
  if (actual.length !== expected.length)
    return `${path}: length ${actual.length} is not ${expected.length}`;
  for (let i = 0; i < expected.length; i++) {
    if (i in actual !== i in expected) return `${path}[${i}]: hole mismatch`;
    const difference = findDifference(actual[i], expected[i], `${path}[${i}]`);
    if (difference !== undefined) return difference;
  }
  return undefined;
}

function compareProperties(
  actual: Record<string, unknown>,
  expected: Record<string, unknown>,
  path: string,
): string | undefined {
  const actualKeys = Object.keys(actual);
  const expectedKeys = Object.keys(expected);
  if (
    actualKeys.length !== expectedKeys.length ||
    actualKeys.some((key, i) => key !== expectedKeys[i])
  ) {
    return `${path}: keys ${JSON.stringify(actualKeys)} are not ${JSON.stringify(expectedKeys)}`;
  }
  for (const key of expectedKeys) {
    const difference = findDifference(
      actual[key],
      expected[key],
      `${path}[${JSON.stringify(key)}]`,
    );
    if (difference !== undefined) return difference;
  }
  return undefined;
}

function kind(value: object): string {
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === null) return 'a null-prototype object';
  return `a ${(proto as { constructor?: { name?: string } }).constructor?.name ?? 'object'}`;
}

function show(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`;
  if (Object.is(value, -0)) return '-0';
  if (typeof value === 'string') return JSON.stringify(value);
  return typeof value === 'object' && value !== null ? kind(value) : String(value);
}
