import { describe, expect, it } from 'vitest';
import { FlowDefinitionError, InputRejectedError, parseFlow } from '../../src/index.js';
import { checkDepth, parseJsonWithDepth } from '../../src/util/value-depth.js';

// Issue 7 item 9: a document, an input or event data nested thousands of levels deep was an
// "internal error: RangeError: Maximum call stack size exceeded". It is now refused with a
// typed error naming where it went too deep, before anything runs or is stored.

function nestedJson(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

function nestedObject(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

function definitionError(work: () => unknown): FlowDefinitionError {
  try {
    work();
  } catch (error) {
    if (error instanceof FlowDefinitionError) return error;
    throw error;
  }
  throw new Error('expected a FlowDefinitionError');
}

const flowAround = (deep: string) =>
  `{"nodes":[{"type":"start","id":"s","next":"e"},{"type":"end","id":"e","output":${deep}}]}`;

describe('depth limits', () => {
  it('a JSON flow document 5,000 levels deep is a definition error, not a stack overflow', () => {
    const error = definitionError(() => parseFlow(flowAround(nestedJson(5_000))));
    expect(error.issues[0]!.message).toMatch(/nested more than 256 levels/);
  });

  it('a flow-style YAML document 5,000 levels deep is refused the same way', () => {
    const yaml = 'nodes:\n  - ' + '['.repeat(5_000) + ']'.repeat(5_000) + '\n';
    expect(definitionError(() => parseFlow(yaml)).issues[0]!.message).toMatch(/nested more than/);
  });

  it('an object handed over directly is checked too, naming the path', () => {
    const doc = {
      nodes: [
        { type: 'start', id: 's', next: 'e' },
        { type: 'end', id: 'e', output: nestedObject(300) },
      ],
    };
    const error = definitionError(() => parseFlow(doc));
    expect(error.issues[0]!.path).toMatch(/^nodes\[1\]\.output\.a\.a/);
  });

  it('a flow of ordinary depth still loads', () => {
    expect(parseFlow(flowAround(nestedJson(100))).nodes).toHaveLength(2);
  });

  it('input JSON deeper than the limit is InputRejectedError input_too_deep, before parsing', () => {
    try {
      parseJsonWithDepth(nestedJson(5_000), 256, '--input');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(InputRejectedError);
      expect((error as InputRejectedError).code).toBe('input_too_deep');
      expect((error as InputRejectedError).path).toBe('--input');
    }
  });

  it('checkDepth walks iteratively: a value 100,000 levels deep is refused, not a crash', () => {
    expect(() => checkDepth(nestedObject(100_000), 256, '$INPUT')).toThrow(
      /\$INPUT(\.a)+ is nested more than 256 levels/,
    );
  });
});

describe('depth limits at run time', () => {
  it('runFlow refuses an input deeper than the limit with input_too_deep naming $INPUT', async () => {
    const { runFlow } = await import('../../src/index.js');
    const flow = parseFlow(flowAround('"$INPUT"'));
    await expect(runFlow(flow, nestedObject(5_000) as object)).rejects.toMatchObject({
      code: 'input_too_deep',
      path: expect.stringMatching(/^\$INPUT\.a/),
    });
  });
});
