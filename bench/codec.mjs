// State codec cost next to plain JSON (docs/durable-contract.md §2: encoding a JSON-only 100 KB context must
// stay within 2x of JSON.stringify). Prints figures only; build first
// (`npx tsc -p tsconfig.build.json`, or `npm run build`).
// Usage: node bench/codec.mjs
import {
  decodeState,
  decodeValue,
  encodeState,
  encodeValue,
  newExecutionState,
} from '../dist/index.js';

const TARGET_BYTES = 100 * 1024;

/** A node result shaped like an HTTP call's output: records with strings, numbers, flags. */
function jsonResult(seed, rows) {
  return {
    status: 200,
    headers: { 'content-type': 'application/json', 'x-request-id': `req-${seed}` },
    body: {
      items: Array.from({ length: rows }, (_, i) => ({
        id: seed * 1000 + i,
        name: `customer ${seed}-${i}`,
        email: `user${i}@example.com`,
        active: i % 3 !== 0,
        score: (i * 7.31) % 100,
        tags: ['alpha', 'beta', `t${i % 5}`],
        address: { street: `${i} Main Street`, city: 'Springfield', zip: String(10000 + i) },
      })),
      total: rows,
      next: null,
    },
  };
}

/** Same shape, but holding the types JSON cannot: Dates, Sets, Maps. */
function richResult(seed, rows) {
  const result = jsonResult(seed, rows);
  for (const [i, item] of result.body.items.entries()) {
    item.createdAt = new Date(1_700_000_000_000 + i * 60_000);
    item.tags = new Set(item.tags);
    item.meta = new Map([
      ['rank', i],
      ['seen', new Date(1_700_000_000_000)],
    ]);
  }
  return result;
}

function context(makeResult) {
  const ctx = {
    $EXECUTION_ID: 'exec-1',
    $ENV: {},
    $INPUT: { customerId: 42, region: 'eu' },
    $PARENT: {},
    $GLOBAL: { flow_id: 'bench' },
    EXPRESS_PREFIX: '$',
    $FLOW_ID: 'bench',
    $NODE: {},
    $LAST_NODE: null,
    $BRANCH: null,
    $VISITS: {},
  };
  for (let n = 0; JSON.stringify(ctx, jsonSize).length < TARGET_BYTES; n++) {
    ctx.$NODE[`node-${n}`] = makeResult(n, 8);
    ctx.$VISITS[`node-${n}`] = 1;
    ctx.$LAST_NODE = `node-${n}`;
  }
  return ctx;
}

// Sizes the rich context as if its special values were plain, so both contexts hold as much data.
function jsonSize(_key, value) {
  if (value instanceof Set) return [...value];
  if (value instanceof Map) return [...value];
  return value;
}

/**
 * µs per call of `ours` and of `json`, measured in alternating rounds so that load from other
 * processes hits both alike; the fastest round of each is kept (the least disturbed one).
 */
function compare(ours, json, iterations = 100, rounds = 25) {
  const round = (fn) => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) fn();
    return Number(process.hrtime.bigint() - start) / 1000 / iterations;
  };
  round(ours);
  round(json);
  let best = [Infinity, Infinity];
  for (let r = 0; r < rounds; r++)
    best = [Math.min(best[0], round(ours)), Math.min(best[1], round(json))];
  return best;
}

function row(label, [ours, json]) {
  const ratio = `${(ours / json).toFixed(2)}x`;
  console.log(
    `${label.padEnd(40)} ${ours.toFixed(1).padStart(9)} ${json.toFixed(1).padStart(9)} ${ratio.padStart(7)}`,
  );
}

function benchContext(name, ctx) {
  const text = encodeValue(ctx);
  const plain = JSON.stringify(ctx);
  console.log(`\n${name}: ${text.length} chars encoded (JSON.stringify: ${plain.length})`);
  console.log(
    `${'operation'.padEnd(40)} ${'ours µs'.padStart(9)} ${'JSON µs'.padStart(9)} ${'ratio'.padStart(7)}`,
  );
  row(
    'encodeValue vs JSON.stringify',
    compare(
      () => encodeValue(ctx),
      () => JSON.stringify(ctx),
    ),
  );
  row(
    'decodeValue vs JSON.parse',
    compare(
      () => decodeValue(text),
      () => JSON.parse(plain),
    ),
  );
  const state = newExecutionState({ executionId: 'exec-1', flowId: 'bench', context: ctx });
  const stateText = encodeState(state);
  row(
    'encodeState vs JSON.stringify(state)',
    compare(
      () => encodeState(state),
      () => JSON.stringify(state),
    ),
  );
  row(
    'decodeState vs JSON.parse(state)',
    compare(
      () => decodeState(stateText),
      () => JSON.parse(stateText),
    ),
  );
}

console.log(`node ${process.version}`);
benchContext('JSON-only context', context(jsonResult));
benchContext('context with Dates, Sets, Maps', context(richResult));
