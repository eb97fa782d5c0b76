import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { CliError, EXIT } from '../exit-codes.js';
import { positiveInteger } from '../positive-integer.js';
import { redisStoreOptions } from '../runtime.js';
import { storeTarget } from '../store-url.js';

/**
 * `plaita reindex`: rebuilds a Redis store's listing indexes in the index-partition layout it
 * is given, after `PLAITA_INDEX_PARTITIONS` changed (docs/scaling.md). Offline: every worker and
 * server of the prefix is stopped first. The SQL stores' indexes are the database's own.
 */
export function registerReindex(program: Command, context: CommandContext): void {
  program
    .command('reindex')
    .description(
      "rebuild a Redis store's listing indexes for a new index-partition count (stop every process of the store first)",
    )
    .option('--store <url>', 'redis://… or redis+cluster://… (PLAITA_STORE)')
    .option(
      '--index-partitions <n>',
      'the layout to build (PLAITA_INDEX_PARTITIONS; default 1)',
      (raw: string) => positiveInteger(raw, '--index-partitions'),
    )
    .action(async (opts: { store?: string; indexPartitions?: number }) => {
      const target = storeTarget(opts.store);
      if (target.kind !== 'redis')
        throw new CliError(
          `plaita reindex rebuilds Redis listing indexes; the ${target.kind} store keeps its indexes in the database itself`,
          EXIT.usage,
        );
      const { RedisExecutionStore } =
        await import('../../backends/redis/store/redis-execution-store.js');
      const options = redisStoreOptions(opts.indexPartitions);
      const store = new RedisExecutionStore({ url: target.url }, options);
      try {
        const report = await store.rebuildIndexes();
        const partitions = options.indexPartitions ?? 1;
        const unreadable = report.unreadable.length
          ? `; ${report.unreadable.length} unreadable execution record(s) left unlisted: ${report.unreadable.join(' ')}`
          : '';
        context
          .output()
          .result(
            { ...report, indexPartitions: partitions },
            `indexed ${report.executions} execution(s) in ${partitions} partition(s); removed ${report.removedKeys} index key(s) of the old layout${unreadable}`,
          );
        context.exit(report.unreadable.length ? EXIT.failed : EXIT.ok);
      } finally {
        await store.close();
      }
    });
}
