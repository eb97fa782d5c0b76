import type { Cluster, Redis } from 'ioredis';
import { ioredisDriver } from '../ioredis-driver.js';
import { RedisConnection, type RedisClient } from '../redis-connection.js';

export interface BlockingTimings {
  connectTimeoutMs: number;
  /** The longest BLOCK this queue ever sends, ms (receive blocks in slices no longer). */
  maxBlockMs: number;
  /** Slack on top of a BLOCK before the read counts as hung, ms. */
  commandTimeoutMs: number;
}

/**
 * Dedicated connections for blocking XREADGROUP: a blocked read holds its connection, so it
 * must not share one with acks and renewals, and it needs a command timeout longer than its
 * BLOCK. One connection per concurrent blocking receive, kept for reuse; each is wrapped in a
 * RedisConnection, so it waits for `ready` at most connectTimeoutMs, reconnects in the
 * background, and its failures arrive classified (StoreUnavailableError when transient).
 */
export class BlockingConnections {
  private readonly idle: RedisConnection[] = [];
  private readonly all = new Set<RedisConnection>();
  private readonly commandTimeoutMs: number;

  constructor(
    private readonly base: RedisClient,
    private readonly timings: BlockingTimings,
  ) {
    this.commandTimeoutMs = timings.maxBlockMs + timings.commandTimeoutMs;
  }

  /** Runs `read` on a free blocking connection (opened on demand) and returns it to the pool. */
  async use<T>(what: string, read: (client: Redis) => Promise<T>): Promise<T> {
    const connection = this.idle.pop() ?? this.open();
    try {
      return await connection.call(what, (client) => read(client as Redis));
    } finally {
      if (this.all.has(connection)) this.idle.push(connection);
    }
  }

  /** Disconnects every blocking connection; reads in progress reject (the queue ends them empty). */
  async close(): Promise<void> {
    const connections = [...this.all];
    this.all.clear();
    this.idle.length = 0;
    await Promise.all(
      connections.map(async (connection) => {
        connection.client.disconnect();
        await connection.close();
      }),
    );
  }

  private open(): RedisConnection {
    const client = this.duplicate();
    // RedisConnection stops listening when closed; late socket errors must not reach the console.
    client.on('error', () => undefined);
    const connection = new RedisConnection(
      { client },
      { connectTimeoutMs: this.timings.connectTimeoutMs, commandTimeoutMs: this.commandTimeoutMs },
    );
    this.all.add(connection);
    return connection;
  }

  /**
   * A new client to the same server (or cluster) with the base's credentials; never an offline
   * queue or a silent resend, and a command timeout longer than the longest BLOCK. A cluster
   * duplicate follows MOVED like the base: a partition's blocking read goes to the node that
   * owns its slot now.
   */
  private duplicate(): RedisClient {
    const node = {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      commandTimeout: this.commandTimeoutMs,
    };
    if (!(this.base instanceof ioredisDriver().Cluster))
      return this.base.duplicate({ lazyConnect: true, ...node });
    const cluster: Cluster = this.base;
    const { enableOfflineQueue: _, ...perNode } = node;
    return cluster.duplicate([], {
      lazyConnect: true,
      enableOfflineQueue: false,
      redisOptions: { ...cluster.options.redisOptions, ...perNode },
    });
  }
}
