import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { driveUntilSettled } from '../drive.js';
import { type DurableFlags, withDurableOptions, withRuntime } from '../durable-options.js';
import { auditCliWrite } from '../cli-audit.js';
import { CliError, EXIT } from '../exit-codes.js';
import { positiveInteger } from '../positive-integer.js';
import { reportExecution } from '../report-execution.js';
import { hopelessReplay } from '../../client/hopeless-replay.js';
import { reapStale } from '../../worker/reaper.js';
import { parseDuration } from '../../util/duration.js';

export function registerCancel(program: Command, context: CommandContext): void {
  withDurableOptions(
    program
      .command('cancel')
      .description('cancel a queued, running or suspended execution')
      .argument('<executionId>', 'the id `run` or `start` printed')
      .option('--reason <text>'),
  ).action(async (executionId: string, opts: DurableFlags & { reason?: string }) => {
    await withRuntime(opts, async (runtime) => {
      const before = await runtime.client.get(executionId);
      await runtime.client.cancel(executionId, opts.reason ? { reason: opts.reason } : {});
      await auditCliWrite(runtime, opts, 'execution.cancel', executionId);
      if (!runtime.embedded) {
        context
          .output()
          .result(
            { executionId, status: 'cancel_requested' },
            `cancel requested for ${executionId}`,
          );
        return context.exit(EXIT.ok);
      }
      const state = await driveUntilSettled(runtime, executionId, before?.version ?? 0, opts.store);
      reportExecution(context, state, opts.store);
      context.exit(state.status === 'cancelled' ? EXIT.ok : EXIT.failed);
    });
  });
}

export function registerRetry(program: Command, context: CommandContext): void {
  withDurableOptions(
    program
      .command('retry')
      .description('re-run an execution in error from its last good checkpoint')
      .argument('<executionId>', 'the id `run` or `start` printed'),
  ).action(async (executionId: string, opts: DurableFlags) => {
    await withRuntime(opts, async (runtime) => {
      const before = await runtime.client.get(executionId);
      await runtime.client.retry(executionId);
      await auditCliWrite(runtime, opts, 'execution.retry', executionId);
      if (!runtime.embedded) {
        context
          .output()
          .result({ executionId, status: 'retry_requested' }, `retry requested for ${executionId}`);
        return context.exit(EXIT.ok);
      }
      context.exit(
        reportExecution(
          context,
          await driveUntilSettled(runtime, executionId, before?.version ?? 0, opts.store),
          opts.store,
        ),
      );
    });
  });
}

export function registerReap(program: Command, context: CommandContext): void {
  withDurableOptions(
    program
      .command('reap')
      .description('re-enqueue stale running executions so they continue from their checkpoint')
      .option(
        '--idle <duration>',
        'no progress and no lease for this long (ms or ISO 8601; "10m" style too)',
        '10m',
      ),
  ).action(async (opts: DurableFlags & { idle: string }) => {
    const idleMs = parseIdle(opts.idle);
    await withRuntime(opts, async (runtime) => {
      const reaped = await reapStale(runtime.store, runtime.queue, {
        idleMs,
        ...(opts.tenant ? { tenantId: opts.tenant } : {}),
      });
      context
        .output()
        .result(
          { reaped },
          reaped.length ? `re-enqueued ${reaped.length}: ${reaped.join(' ')}` : 'nothing to reap',
        );
      context.exit(EXIT.ok);
    });
  });
}

/** `10m`, `30s`, `2h`, `500` (ms) or ISO 8601 (`PT10M`). */
function parseIdle(raw: string): number {
  const short = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/.exec(raw.trim());
  if (short)
    return (
      Number(short[1]) *
      { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[
        short[2] as 'ms' | 's' | 'm' | 'h' | 'd'
      ]
    );
  try {
    return parseDuration(raw) ?? 0;
  } catch {
    throw new CliError(`--idle ${raw}: expected e.g. 10m, 30s, 500 (ms) or PT10M`, EXIT.usage);
  }
}

export function registerDlq(program: Command, context: CommandContext): void {
  const dlq = program
    .command('dlq')
    .description('dead letters: messages that could not be processed');
  withDurableOptions(
    dlq
      .command('list')
      .description('list dead letters, newest first')
      .option('--limit <n>', 'page size', '20')
      .option('--cursor <cursor>'),
  ).action(async (opts: DurableFlags & { limit: string; cursor?: string }) => {
    const limit = positiveInteger(opts.limit, '--limit');
    await withRuntime(opts, async (runtime) => {
      const page = await runtime.queue.listDeadLetters({
        limit,
        cursor: opts.cursor ?? null,
      });
      const text = page.items
        .map(
          (d) =>
            `${d.id}  ${d.reason.padEnd(20)}  ${d.executionId ?? '-'}  ${d.at}  deliveries ${d.deliveryCount}${d.lastError ? `  ${d.lastError}` : ''}`,
        )
        .join('\n');
      context
        .output()
        .result({ items: page.items, nextCursor: page.nextCursor }, text || 'no dead letters');
      context.exit(EXIT.ok);
    });
  });
  withDurableOptions(
    dlq.command('replay').description('re-enqueue a dead letter (after a fix)').argument('<id>'),
  ).action(async (id: string, opts: DurableFlags) => {
    await withRuntime(opts, async (runtime) => {
      const letter = await runtime.queue.findDeadLetter(id);
      if (letter === null) throw new CliError(`no dead letter ${id}`, EXIT.usage);
      const hopeless = await hopelessReplay(letter, runtime.store);
      if (hopeless !== null) throw new CliError(hopeless, EXIT.usage);
      if (!(await runtime.queue.replayDeadLetter(id)))
        throw new CliError(`no dead letter ${id}`, EXIT.usage);
      await auditCliWrite(runtime, opts, 'dead_letter.replay', id);
      context.output().result({ id, replayed: true }, `replayed ${id}`);
      context.exit(EXIT.ok);
    });
  });
  withDurableOptions(dlq.command('purge').description('delete every dead letter')).action(
    async (opts: DurableFlags) => {
      await withRuntime(opts, async (runtime) => {
        const purged = await runtime.queue.purgeDeadLetters();
        await auditCliWrite(runtime, opts, 'dead_letter.purge', String(purged));
        context
          .output()
          .result({ purged }, `purged ${purged} dead letter${purged === 1 ? '' : 's'}`);
        context.exit(EXIT.ok);
      });
    },
  );
}
