import { lastNode } from '../../state/checkpoint-context.js';
import type { Command } from 'commander';
import { errorCode } from '../../errors/plaita-error.js';
import { UnknownExecutionError } from '../../errors/execution-errors.js';
import { EXECUTION_STATUSES, type ExecutionStatus } from '../../state/execution-state.js';
import type { CommandContext } from '../command-context.js';
import { type DurableFlags, withDurableOptions, withRuntime } from '../durable-options.js';
import { CliError, EXIT } from '../exit-codes.js';
import { humanValue } from '../output.js';
import { positiveInteger } from '../positive-integer.js';
import { describeError } from '../report-execution.js';

export function registerStatus(program: Command, context: CommandContext): void {
  withDurableOptions(
    program
      .command('status')
      .description("print an execution's state")
      .argument('<executionId>', 'the id `run` or `start` printed'),
  ).action(async (executionId: string, opts: DurableFlags) => {
    await withRuntime(opts, async (runtime) => {
      const state = await runtime.client.get(executionId);
      // An unknown id is bad input (exit 2), as for event, cancel and retry.
      if (!state) throw new UnknownExecutionError(`no execution ${executionId}`, { executionId });
      const { context: checkpoint, ...record } = state;
      const lines = [
        `${state.executionId}  ${state.status}  flow ${state.flowId ?? '?'}${state.flowVersion ? `@${state.flowVersion}` : ''}`,
        `created ${state.createdAt}  updated ${state.updatedAt}${state.endedAt ? `  ended ${state.endedAt}` : ''}`,
        ...(state.waiting
          ? [
              `waiting at '${state.waiting.nodeId}' for '${state.waiting.eventType}'${state.waiting.dueAt ? ` until ${state.waiting.dueAt}` : ''}`,
            ]
          : []),
        ...(state.status === 'completed' ? [`result: ${humanValue(state.result)}`] : []),
        ...(state.error ? [`error: ${describeError(state)}`] : []),
        `last node: ${lastNode(checkpoint) ?? '-'}  attempts: ${JSON.stringify(state.attempts)}`,
      ];
      context.output().result({ ...record, lastNode: lastNode(checkpoint) }, lines.join('\n'));
      context.exit(EXIT.ok);
    });
  });
}

export function registerList(program: Command, context: CommandContext): void {
  withDurableOptions(
    program
      .command('list')
      .description('list executions, newest first')
      .option(
        '--status <status>',
        `one of ${EXECUTION_STATUSES.join(', ')} (comma-separated for several)`,
      )
      .option('--flow <flowId>', 'only this flow')
      .option('--limit <n>', 'page size', '20')
      .option('--cursor <cursor>', 'the nextCursor of a previous page'),
  ).action(
    async (
      opts: DurableFlags & { status?: string; flow?: string; limit: string; cursor?: string },
    ) => {
      const statuses = opts.status?.split(',').map((s) => s.trim()) ?? [];
      for (const s of statuses)
        if (!(EXECUTION_STATUSES as readonly string[]).includes(s))
          throw new CliError(
            `--status ${s}: expected ${EXECUTION_STATUSES.join(' | ')}`,
            EXIT.usage,
          );
      const limit = positiveInteger(opts.limit, '--limit');
      await withRuntime(opts, async (runtime) => {
        const page = await runtime.client
          .list({
            limit,
            ...(statuses.length ? { status: statuses as ExecutionStatus[] } : {}),
            ...(opts.flow ? { flowId: opts.flow } : {}),
            ...(opts.cursor ? { cursor: opts.cursor } : {}),
          })
          .catch((error: unknown) => {
            if (errorCode(error) !== 'invalid_cursor') throw error;
            throw new CliError(
              `--cursor ${opts.cursor ?? ''}: not a cursor this store's list printed (use the one after "more:", with the same --status and --flow)`,
              EXIT.usage,
            );
          });
        const rows = page.items.map(
          (i) =>
            `${i.executionId}  ${i.status.padEnd(9)}  ${(i.flowId ?? '-').padEnd(20)}  ${i.createdAt}`,
        );
        const text = rows.length
          ? rows.join('\n') + (page.nextCursor ? `\n(more: --cursor ${page.nextCursor})` : '')
          : 'no executions';
        context.output().result({ items: page.items, nextCursor: page.nextCursor }, text);
        context.exit(EXIT.ok);
      });
    },
  );
}
