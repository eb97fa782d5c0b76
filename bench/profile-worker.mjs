// Ad-hoc: one Redis-tier run for a CPU profile (node --cpu-prof bench/profile-worker.mjs <kind> N).
import { parseFlow } from '../dist/index.js';
import { benchRegistry, chainFlowDocument, effectfulChainDocument } from './chain-flow.mjs';
import { cleanupRedisPrefix, redisParts, runWorkload } from './worker-harness.mjs';
const kind = process.argv[2] ?? 'replayable';
const n = Number(process.argv[3] ?? 3000);
const registry = benchRegistry();
const doc = kind === 'effectful' ? effectfulChainDocument('p-e', 5) : chainFlowDocument('p-r', 5);
const flow = parseFlow(doc, { registry });
const prefix = `prof-${process.pid}`;
const parts = redisParts(prefix);
const r = await runWorkload({ ...parts, registry, steps: 5, count: n, flow });
console.log(JSON.stringify(r));
await parts.close();
await cleanupRedisPrefix(prefix);
