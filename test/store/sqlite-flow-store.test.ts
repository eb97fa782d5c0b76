import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { SqliteFlowStore } from '../../src/store/sqlite/sqlite-flow-store.js';
import { describeFlowStore } from '../contracts/flow-store.contract.js';

const dir = mkdtempSync(join(tmpdir(), 'plaita-sqlite-flows-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeFlowStore('sqlite', () => new SqliteFlowStore({ path: join(dir, 'plaita.db') }));
