// Micro-benchmark of the expression language: evaluations per second of a cached path, a
// template and a $F call. Prints figures only. Run after `npm run build`:
//   node bench/expression.mjs            (or EXPRESSION_DIST=/other/dist node bench/expression.mjs)
import console from 'node:console';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const dist = process.env.EXPRESSION_DIST ?? resolve(import.meta.dirname, '../dist');
const load = (file) => import(pathToFileURL(resolve(dist, 'expression', file)).href);
const { evaluateValue } = await load('evaluate.js');
const { defaultFunctions } = await load('function-registry.js');
const { parseCacheStats } = await load('program.js');

const scope = {
  context: {
    $INPUT: { items: [{ price: 12.5, name: 'pen' }], name: 'Ann', xs: [3, 1, 2] },
    $NODE: {},
    $GLOBAL: { flow_id: 'bench' },
  },
  functions: defaultFunctions,
};

const cases = [
  ['cached path', '$INPUT.items[0].price'],
  [
    'template',
    'Hello {% $INPUT.name %}, your {% $INPUT.items[0].name %} costs {% $INPUT.items[0].price %}',
  ],
  ['$F call', '$F.add($INPUT.items[0].price, 1)'],
  ['nested $F call', '$F.concat($F.upper($INPUT.name), "-", $F.len($INPUT.xs))'],
  ['object of 4 leaves', { a: '$INPUT.name', b: '$INPUT.items[0].price', c: 'literal', d: 7 }],
];

function measure(value) {
  for (let i = 0; i < 200_000; i++) evaluateValue(value, scope); // warm up (JIT)
  let iterations = 0;
  let sink;
  const start = process.hrtime.bigint();
  const budgetNs = 1_000_000_000n;
  while (process.hrtime.bigint() - start < budgetNs) {
    for (let i = 0; i < 10_000; i++) sink = evaluateValue(value, scope);
    iterations += 10_000;
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { perSecond: iterations / seconds, sink };
}

console.log(`node ${process.version}`);
for (const [label, value] of cases) {
  const { perSecond, sink } = measure(value);
  console.log(
    `${label.padEnd(20)} ${(perSecond / 1e6).toFixed(2).padStart(7)} M evaluations/s   -> ${JSON.stringify(sink)}`,
  );
}
console.log('parse cache', JSON.stringify(parseCacheStats()));
