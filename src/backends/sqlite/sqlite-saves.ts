import type { ExecutionState } from '../../state/execution-state.js';
import type { SaveOptions } from '../../store/execution-store.js';
import { alreadyStored, fenceRejected } from '../../store/shared/fence.js';
import { asFullRewrite, rejectOversized, type SavePlan } from '../../store/shared/save-plan.js';
import type { ResolvedStoreOptions } from '../../store/shared/store-options.js';
import * as sql from './sqlite-execution-sql.js';
import type { SqliteDatabase } from './sqlite-database.js';
import { isLockedOut } from './classify-sqlite-error.js';
import { ItemFailure } from '../../util/tick-batch.js';
import { GroupCommit, type PlannedSave, type SaveAnswer } from '../../store/shared/group-commit.js';

/** The save path of SqliteExecutionStore: planning, group commit, and the conditional writes. */
export class SqliteSaves {
  constructor(
    private readonly database: SqliteDatabase,
    private readonly options: ResolvedStoreOptions,
  ) {
    this.commits = new GroupCommit(options, (batch) => this.saveBatch(batch));
  }

  private readonly commits: GroupCommit;

  /** What close() awaits: the saves already accepted are written, not dropped. */
  settle(): Promise<void> {
    return this.commits.settle();
  }

  /**
   * Planned (encoded, validated) at once; written with the other saves of this turn of the
   * event loop in ONE `BEGIN IMMEDIATE` transaction (group commit). It resolves once that
   * transaction has committed, and fails only for its own reason.
   */
  save(state: ExecutionState, options: SaveOptions = {}): Promise<void> {
    return this.commits.save(state, options);
  }

  /**
   * One transaction for the batch. A save that is refused (fenced out, over the size limit) is
   * refused before it writes anything, so it needs no savepoint: it fails alone and the others
   * commit. Any other failure rolls the batch back, and each save is then tried on its own —
   * except the file locked past the busy timeout: that is every save's, and
   * trying each again would block the event loop one busy timeout per save (no lease renewed
   * meanwhile), so the batch fails as a whole and every caller may retry.
   */
  private async saveBatch(batch: readonly PlannedSave[]): Promise<SaveAnswer[]> {
    try {
      return await this.database.use(() =>
        this.database.transaction(this.writeBatch).immediate(batch),
      );
    } catch (error) {
      if (batch.length === 1 || isLockedOut(error)) throw error;
      return batch.map((item) =>
        this.database
          .use(() => this.database.transaction(this.writeBatch).immediate([item]))
          .then(([result]) => {
            if (result) throw result.error;
          }),
      );
    }
  }

  private readonly writeBatch = (batch: readonly PlannedSave[]): (ItemFailure | undefined)[] =>
    batch.map(({ state, plan, now }) => {
      const refusal = this.write(state, plan, now);
      return refusal && new ItemFailure(refusal);
    });

  /**
   * Inside the save transaction. An unfenced full rewrite is one upsert (a new row, a live one,
   * or an expired one replaced). Otherwise the conditional UPDATE — first the forms that leave
   * indexed columns alone, as they rarely change — then the nodes; when no form matched,
   * {@link rejectOrInsert} finds out why. Returns the refusal of a save that wrote nothing.
   */
  private write(state: ExecutionState, plan: SavePlan, now: number): Error | undefined {
    if (plan.createOnly) {
      // Inside BEGIN IMMEDIATE: no other writer between this read and the insert.
      const key = { tenantId: plan.row.tenantId, executionId: plan.row.executionId, now };
      if (this.database.get(sql.SELECT_GENERATION, key) !== undefined)
        return alreadyStored(key.executionId);
      return this.insert(plan, now);
    }
    if (plan.fence === null && plan.checkpoint.fullRewrite) return this.insert(plan, now);
    const params = saveParams(plan, now, this.options.maxStateBytes);
    const shape = saveShape(plan);
    if (!sql.UPDATES.some((update) => this.database.run(update[shape], params) === 1))
      return this.rejectOrInsert(state, plan, now);
    this.writeNodes(plan);
    return undefined;
  }

  /** No UPDATE matched: absent (a new row, unless fenced), fenced out, or too large. */
  private rejectOrInsert(state: ExecutionState, plan: SavePlan, now: number): Error | undefined {
    const key = { tenantId: plan.row.tenantId, executionId: plan.row.executionId };
    const row = this.database.get<{ generation: number }>(sql.SELECT_GENERATION, { ...key, now });
    if (plan.fence !== null && row?.generation !== plan.fence)
      return fenceRejected(key.executionId, row?.generation ?? null, plan.fence);
    if (row === undefined) return this.insert(asFullRewrite(state, plan, this.options), now);
    // Live and not fenced out: the UPDATE refused the new size total.
    const sizes = this.database.all<{ nodeKey: string; bytes: number }>(sql.SELECT_NODE_SIZES, key);
    try {
      rejectOversized(
        plan,
        sizes.map((s) => [s.nodeKey, s.bytes] as const),
        this.options.maxStateBytes,
      );
    } catch (refusal) {
      return refusal as Error;
    }
  }

  private insert(full: SavePlan, now: number): undefined {
    this.database.run(sql.INSERT_EXECUTION, saveParams(full, now, this.options.maxStateBytes));
    this.writeNodes(full);
    return undefined;
  }

  private writeNodes(plan: SavePlan): void {
    const { tenantId, executionId } = plan.row;
    if (plan.checkpoint.fullRewrite) this.database.run(sql.DELETE_NODES, { tenantId, executionId });
    for (const nodeKey of plan.checkpoint.removedKeys)
      this.database.run(sql.DELETE_NODE, { tenantId, executionId, nodeKey });
    const nodes = plan.checkpoint.entries;
    for (let index = 0; index < nodes.length; index++) {
      const node = nodes[index]!;
      this.database.run(sql.UPSERT_NODE, {
        tenantId,
        executionId,
        nodeKey: node.key,
        nodeCount: nodes.length,
        index,
        value: node.text,
        bytes: node.bytes,
      });
    }
  }
}

/** Every parameter of the save statements, in one object of a fixed shape. */
function saveParams(plan: SavePlan, now: number, maxStateBytes: number): Record<string, unknown> {
  const { row, checkpoint } = plan;
  const keys = checkpoint.fullRewrite ? [] : changedKeys(plan);
  return {
    tenantId: row.tenantId,
    executionId: row.executionId,
    flowId: row.flowId,
    flowVersion: row.flowVersion,
    flowHash: row.flowHash,
    status: row.status,
    version: row.version,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    endedAt: row.endedAt,
    expiresAt: row.expiresAt,
    header: row.header,
    headerBytes: row.headerBytes,
    summary: row.summary,
    writtenBytes: plan.writtenEntryBytes,
    nodeCount: checkpoint.entries.length,
    changedKey: keys.length === 1 ? keys[0] : null,
    changedKeys: keys.length > sql.FEW_KEYS ? JSON.stringify(keys) : null,
    ...fewKeys(keys),
    fence: plan.fence,
    maxStateBytes,
    now,
  };
}

/** Which UPDATE fits the save (see SaveShape). */
function saveShape(plan: SavePlan): sql.SaveShape {
  if (plan.checkpoint.fullRewrite) return 'full';
  const changed = plan.checkpoint.removedKeys.length + plan.checkpoint.entries.length;
  if (changed <= 1) return changed === 0 ? 'none' : 'one';
  return changed <= sql.FEW_KEYS ? 'few' : 'many';
}

/** The stored keys of the entries an incremental save replaces or removes. */
function changedKeys(plan: SavePlan): string[] {
  const keys = [...plan.checkpoint.removedKeys];
  for (const entry of plan.checkpoint.entries) keys.push(entry.key);
  return keys;
}

/** `@changed0`… of the `few` shape: the keys, NULL (which matches nothing) for the rest. */
function fewKeys(keys: readonly string[]): Record<string, string | null> {
  const params: Record<string, string | null> = {};
  const few = keys.length > 1 && keys.length <= sql.FEW_KEYS;
  for (let i = 0; i < sql.FEW_KEYS; i++) params[`changed${i}`] = few ? (keys[i] ?? null) : null;
  return params;
}
