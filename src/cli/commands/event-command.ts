import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { driveUntilSettled } from '../drive.js';
import { type DurableFlags, withDurableOptions, withRuntime } from '../durable-options.js';
import { auditCliWrite } from '../cli-audit.js';
import { EXIT } from '../exit-codes.js';
import { readJsonValue } from '../read-input.js';
import { reportExecution } from '../report-execution.js';

export function registerEvent(program: Command, context: CommandContext): void {
  withDurableOptions(
    program
      .command('event')
      .description('deliver an event (e.g. an approval decision) to an execution')
      .argument('<executionId>', 'the execution waiting for it')
      .argument('<type>', 'event type, e.g. approval_decision')
      .option('-d, --data <json>', 'event payload as JSON, or @file')
      .option('--event-id <id>', 'idempotency: a repeated event id is applied once'),
  ).action(
    async (
      executionId: string,
      type: string,
      opts: DurableFlags & { data?: string; eventId?: string },
    ) => {
      const data = readJsonValue(opts.data, '--data');
      await withRuntime(opts, async (runtime) => {
        const before = await runtime.client.get(executionId);
        const eventId = await runtime.client.sendEvent(executionId, {
          type,
          data,
          ...(opts.eventId ? { eventId: opts.eventId } : {}),
        });
        await auditCliWrite(runtime, opts, 'execution.event', executionId);
        if (!runtime.embedded) {
          context
            .output()
            .result(
              { executionId, eventId, status: 'sent' },
              `event ${eventId} sent to ${executionId}`,
            );
          context.exit(EXIT.ok);
          return;
        }
        // Embedded tier: no worker daemon, so this command resumes the execution itself.
        const state = await driveUntilSettled(
          runtime,
          executionId,
          before?.version ?? 0,
          opts.store,
        );
        // An event no node waits for is kept for later (docs/durable-runtime.md): say so, since
        // a mistyped type otherwise looks like an event that did nothing.
        const waitsFor = state.status === 'suspended' ? state.waiting?.eventType : undefined;
        if (
          waitsFor !== undefined &&
          waitsFor !== type &&
          state.inbox.some((e) => e.eventId === eventId)
        )
          context
            .output()
            .note(
              `note: event '${type}' was kept in the execution's inbox: it waits for '${waitsFor}', not '${type}'`,
            );
        context.exit(reportExecution(context, state, opts.store));
      });
    },
  );
}
