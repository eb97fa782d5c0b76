import type { PoolClient } from 'pg';
import { errorCode } from '../../errors/plaita-error.js';
import type { ExecutionState } from '../../state/execution-state.js';
import type { SaveOptions } from '../../store/execution-store.js';
import { alreadyStored, fenceRejected } from '../../store/shared/fence.js';
import {
  asFullRewrite,
  planSave,
  rejectOversized,
  type SavePlan,
} from '../../store/shared/save-plan.js';
import type { ResolvedStoreOptions } from '../../store/shared/store-options.js';
import { MAX_INLINE_VALUES, type ExecutionSql } from './postgres-execution-sql.js';
import { inTransaction, type PostgresConnection } from './postgres-connection.js';
import { namedRows } from './statement-name.js';
import { ItemFailure } from '../../util/tick-batch.js';
import { GroupCommit, type PlannedSave, type SaveAnswer } from '../../store/shared/group-commit.js';

/** SQLSTATE lock_not_available: the save's short lock_timeout ran out (see saveAlone). */
const LOCK_NOT_AVAILABLE = '55P03';
/** SQLSTATE deadlock_detected. */
const DEADLOCK = '40P01';

/**
 * Whether a failed batch is sent again save by save: for a lock conflict (the SQLSTATE, kept as
 * the classified error's cause) or a failure that is not transient (it may be one save's own).
 */
function sendAgainAlone(error: unknown): boolean {
  const failure = error as { cause?: unknown; retryable?: unknown } | null;
  const code = errorCode(failure?.cause) ?? errorCode(error);
  return code === LOCK_NOT_AVAILABLE || code === DEADLOCK || failure?.retryable !== true;
}

/** The save path of PostgresExecutionStore: planning, group commit, and `save_execution`'s answers. */
export class PostgresSaves {
  constructor(
    private readonly connection: PostgresConnection,
    private readonly sql: ExecutionSql,
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
   * Planned (encoded, validated) at once, then written with the other saves of this tick
   * (group commit): a save alone is one call of `save_execution` (see its migration), one round
   * trip committed on return; several go as ONE statement (`saveBatch` in the SQL): one round
   * trip, one implicit transaction, one commit and WAL flush.
   * Each resolves once its own write is committed, and fails only for its own reason.
   */
  save(state: ExecutionState, options: SaveOptions = {}): Promise<void> {
    if (options.createOnly) return this.create(state, options);
    return this.commits.save(state, options);
  }

  /**
   * A create-only save (a start with a dedup key), in a transaction of its own: creates of one
   * id queue on an advisory lock, so the second reads the first's committed row (READ
   * COMMITTED: a fresh snapshot per statement) and writes nothing. Rare, so not batched.
   */
  private async create(state: ExecutionState, options: SaveOptions): Promise<void> {
    const now = this.options.clock.now();
    const plan = planSave(state, options, this.options, now);
    const { tenantId, executionId } = plan.row;
    const reply = await this.connection.withClient((client) =>
      inTransaction(client, async () => {
        await client.query(this.sql.lockCreate, [tenantId, executionId]);
        const found = await client.query(this.sql.selectLive, [tenantId, executionId, now]);
        if (found.rowCount !== 0) return null;
        return this.call(client, plan, now, true);
      }),
    );
    if (reply === null) throw alreadyStored(executionId);
    this.interpret(reply, plan);
  }

  private async saveBatch(batch: readonly PlannedSave[]): Promise<SaveAnswer[]> {
    if (batch.length === 1) return [this.saveAlone(batch[0]!)];
    let replies: BatchReply[];
    try {
      const values = batchValues(batch, this.options);
      replies = await this.connection.withClient((client) =>
        namedRows<BatchReply>(client, this.sql.saveBatch, values),
      );
    } catch (error) {
      // The statement ran as one transaction, so nothing of it was written. A row locked by
      // another transaction (or a deadlock), or a failure that is not the server's state (one
      // save's value): each save again on its own, to succeed or fail for its own reason and
      // resolve when it alone is done. The server unavailable or out of time: that is every
      // save's answer (the worker leaves the messages for redelivery), not a second wait each.
      if (!sendAgainAlone(error)) throw error;
      replies = [];
    }
    const byOrdinal = new Map(replies.map((reply) => [Number(reply.ord), reply]));
    return batch.map((item, index) => {
      const reply = byOrdinal.get(index + 1);
      // `absent` wrote nothing: sent again alone, whole.
      if (reply === undefined || reply.outcome === 'absent') return this.saveAlone(item);
      try {
        this.interpret(reply, item.plan);
        return undefined;
      } catch (error) {
        return new ItemFailure(error);
      }
    });
  }

  /**
   * One round trip: the call alone, committed as it returns. If the execution's row is locked
   * by another transaction, the call gives up after 10 ms (55P03, nothing written) and is sent
   * again inside BEGIN … COMMIT, waiting: a call that waits must not commit on its own, or a
   * save whose connection was lost while it waited would still land after the caller was told
   * it failed.
   */
  private async saveAlone(item: PlannedSave): Promise<void> {
    const { reply, plan } = await this.connection.withClient(async (client) => {
      try {
        return await this.callSave(client, item, false);
      } catch (error) {
        if (errorCode(error) !== LOCK_NOT_AVAILABLE) throw error;
      }
      return inTransaction(client, () => this.callSave(client, item, true));
    });
    this.interpret(reply, plan);
  }

  /**
   * `save_execution` for one planned save. An incremental save of an execution that is not
   * stored (or expired) comes back `absent`, having written nothing, and is sent again whole.
   */
  private async callSave(
    client: PoolClient,
    { state, plan, now }: PlannedSave,
    wait: boolean,
  ): Promise<{ reply: SaveReply; plan: SavePlan }> {
    let reply = await this.call(client, plan, now, wait);
    if (reply.outcome === 'absent') {
      plan = asFullRewrite(state, plan, this.options);
      reply = await this.call(client, plan, now, wait);
    }
    return { reply, plan };
  }

  /** What `save_execution` answered, as the caller's result: nothing, or its typed error. */
  private interpret(reply: SaveReply, plan: SavePlan): void {
    switch (reply.outcome) {
      case 'saved':
        return;
      case 'fenced':
        throw fenceRejected(
          plan.row.executionId,
          reply.generation === null ? null : Number(reply.generation),
          plan.fence ?? 0,
        );
      case 'too_large':
        return rejectOversized(
          plan,
          (reply.node_keys ?? []).map((key, i) => [key, reply.node_bytes![i]!] as const),
          this.options.maxStateBytes,
        );
      default:
        throw new Error(`save_execution answered ${String(reply.outcome)} to a full rewrite`);
    }
  }

  private async call(
    client: PoolClient,
    plan: SavePlan,
    now: number,
    wait: boolean,
  ): Promise<SaveReply> {
    const { entries: nodes, removedKeys } = plan.checkpoint;
    const values = [
      ...rowValues(plan),
      plan.checkpoint.fullRewrite,
      plan.fence,
      now,
      this.options.maxStateBytes,
      removedKeys,
      nodes.map((n) => n.key),
      nodes.map((n) => n.bytes),
      plan.writtenEntryBytes,
      wait,
      ...(nodes.length > MAX_INLINE_VALUES ? [nodes.map((n) => n.text)] : nodes.map((n) => n.text)),
    ];
    return (await namedRows<SaveReply>(client, this.sql.save(nodes.length), values))[0]!;
  }
}

/** $1…$14: the key, then the row's columns, in the statements' order. */
function rowValues(plan: SavePlan): unknown[] {
  const r = plan.row;
  return [
    r.tenantId,
    r.executionId,
    r.flowId,
    r.flowVersion,
    r.flowHash,
    r.status,
    r.version,
    r.createdAt,
    r.updatedAt,
    r.endedAt,
    r.expiresAt,
    r.header,
    r.headerBytes,
    r.summary,
  ];
}

/** One entry per save of the batch statement, zipped (see `saveBatch` in the SQL). */
function batchValues(batch: readonly PlannedSave[], options: ResolvedStoreOptions): unknown[] {
  const columns: unknown[][] = Array.from({ length: 22 }, () => []);
  for (const { plan, now } of batch) {
    const { entries: nodes, removedKeys } = plan.checkpoint;
    const entry = [
      ...rowValues(plan),
      plan.checkpoint.fullRewrite,
      plan.fence,
      now,
      JSON.stringify(removedKeys),
      JSON.stringify(nodes.map((n) => n.key)),
      `[${nodes.map((n) => n.text).join(',')}]`,
      JSON.stringify(nodes.map((n) => n.bytes)),
      plan.writtenEntryBytes,
    ];
    for (let c = 0; c < entry.length; c++) columns[c]!.push(entry[c]);
  }
  // $18, between the per-save columns: the size limit, one for all.
  return [...columns.slice(0, 17), options.maxStateBytes, ...columns.slice(17)];
}

interface BatchReply extends SaveReply {
  ord: string;
}

/** What `save_execution` answers (bigint comes back as text). */
interface SaveReply {
  outcome: 'saved' | 'fenced' | 'absent' | 'too_large';
  generation: string | null;
  node_keys: string[] | null;
  node_bytes: number[] | null;
}
