import { FlowVersionConflictError, StateCorruptError } from '../../errors.js';
import type { FlowStore, StoredFlow } from '../flow-store.js';
import { flowRecord, storedFlow } from '../sql/flow-record.js';
import { isStorableText } from '../sql/stored-text.js';
import { checkExec } from './execution-index.js';
import { RedisConnection, type RedisTarget } from './redis-connection.js';
import type { RedisStoreOptions } from './redis-execution-store.js';
import { RedisKeys } from './redis-keys.js';
import { SCRIPTS } from './redis-script.js';
import { tagged, unexpected } from './script-reply.js';

/**
 * Flow definitions on Redis, beside the executions (durable.md §3):
 *   `<prefix>:flowdoc:{<flowHash>}`  hash: `text` (the document through the codec), `flowId`,
 *                                    `version` (JSON, so null survives), `createdAt` (epoch ms)
 *   `<prefix>:flowid:{<flowId>}`     hash: `v:<version>` → flowHash, `latest` → flowHash
 *
 * `put` stores the document first (HSETNX in one MULTI: the first writer's record wins and
 * is returned to every later writer of the same content), then publishes it under its flowId
 * with `put-flow-version.lua`, which refuses other content under a published version. A crash
 * between the two leaves a document reachable by hash only; putting it again completes it.
 * The version is checked once before anything is written, so a conflicting put usually
 * stores nothing.
 */
export class RedisFlowStore implements FlowStore {
  readonly #connection: RedisConnection;
  readonly #keys: RedisKeys;

  constructor(target: RedisTarget, options: RedisStoreOptions = {}) {
    this.#keys = new RedisKeys(options.prefix ?? 'plaita');
    this.#connection = new RedisConnection(target, options);
  }

  async put(document: Record<string, unknown>): Promise<StoredFlow> {
    const record = flowRecord(document);
    const { flowHash, flowId, version } = record;
    if (flowId !== null && version !== null) {
      const published = await this.#connection.call(`flow version check of ${flowId}`, (client) =>
        client.hget(this.#keys.flowVersions(flowId), `v:${version}`),
      );
      if (published !== null && published !== flowHash) throw conflict(flowId, version);
    }
    const docKey = this.#keys.flowDocument(flowHash);
    const stored = await this.#connection.call(`flow store of ${flowHash}`, async (client) => {
      const tx = client.multi();
      tx.hsetnx(docKey, 'text', record.text);
      tx.hsetnx(docKey, 'flowId', JSON.stringify(flowId));
      tx.hsetnx(docKey, 'version', JSON.stringify(version));
      tx.hsetnx(docKey, 'createdAt', String(Date.now()));
      tx.hgetall(docKey);
      const results = await tx.exec();
      checkExec(results);
      return results?.at(-1)?.[1];
    });
    if (flowId !== null) {
      const raw = await this.#connection.call(`flow publication of ${flowId}`, (client) =>
        SCRIPTS.putFlowVersion.run(
          client,
          [this.#keys.flowVersions(flowId)],
          [version === null ? '0' : '1', version ?? '', flowHash],
        ),
      );
      const { tag } = tagged(raw, 'put-flow-version');
      if (tag === 'CONFLICT') throw conflict(flowId, version ?? '');
      if (tag !== 'OK') throw unexpected(raw, 'put-flow-version');
    }
    return toStoredFlow(flowHash, stored);
  }

  async getByHash(flowHash: string): Promise<StoredFlow | null> {
    if (!isStorableText(flowHash)) return null;
    const fields = await this.#connection.call(`flow read of ${flowHash}`, (client) =>
      client.hgetall(this.#keys.flowDocument(flowHash)),
    );
    return Object.keys(fields).length === 0 ? null : toStoredFlow(flowHash, fields);
  }

  async getByVersion(flowId: string, version: string | null): Promise<StoredFlow | null> {
    if (!isStorableText(flowId) || (version !== null && !isStorableText(version))) return null;
    const field = version === null ? 'latest' : `v:${version}`;
    const flowHash = await this.#connection.call(`flow lookup of ${flowId}`, (client) =>
      client.hget(this.#keys.flowVersions(flowId), field),
    );
    return flowHash === null ? null : this.getByHash(flowHash);
  }

  close(): Promise<void> {
    return this.#connection.close();
  }
}

function conflict(flowId: string, version: string): FlowVersionConflictError {
  return new FlowVersionConflictError(
    `flow ${flowId} version ${version} is already published with different content`,
  );
}

function toStoredFlow(flowHash: string, fields: unknown): StoredFlow {
  const { text, flowId, version, createdAt } = (fields ?? {}) as Record<string, string | undefined>;
  if (
    text === undefined ||
    flowId === undefined ||
    version === undefined ||
    createdAt === undefined
  ) {
    throw new StateCorruptError(`stored flow ${flowHash} is incomplete`);
  }
  try {
    return storedFlow(
      flowHash,
      JSON.parse(flowId) as string | null,
      JSON.parse(version) as string | null,
      text,
      Number(createdAt),
    );
  } catch (error) {
    if (error instanceof StateCorruptError) throw error;
    throw new StateCorruptError(
      `stored flow ${flowHash} cannot be decoded: ${(error as Error).message}`,
      { cause: error },
    );
  }
}
