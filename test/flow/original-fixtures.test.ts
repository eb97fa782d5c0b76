import { describe, expect, it } from 'vitest';
import { parseFlow, runFlow } from '../../src/index.js';

/**
 * The original's own fixture documents (jeffkit/plaita `tests/fixture/`), as text: the YAML
 * loader must read them as the original's did (flow mappings, an unquoted `$INPUT.age`, CJK
 * scalars, a top-level `desc`). The JSON fixture runs as conformance cases in own-cases/.
 */
const adultCheck = `flow_id: adult_check
desc: 判断成年：输入 age，大于等于 18 返回成年，否则未成年
inputType: { dataType: object }
nodes:
  - { type: start, id: start, next: check_age }
  - type: if
    id: check_age
    condition: { field: $INPUT.age, operator: gte, value: 18 }
    next: end_adult
    else_next: end_minor
  - { type: end, id: end_adult, output: 成年, resultType: success }
  - { type: end, id: end_minor, output: 未成年, resultType: success }
`;

describe('tests/fixture/adult_check.yaml', () => {
  it('loads from YAML text and branches on the age', async () => {
    const flow = parseFlow(adultCheck);
    expect(flow.id).toBe('adult_check');
    expect(flow.warnings).toEqual([]);
    expect(await runFlow(flow, { age: 18 })).toBe('成年');
    expect(await runFlow(flow, { age: 17 })).toBe('未成年');
  });
});
