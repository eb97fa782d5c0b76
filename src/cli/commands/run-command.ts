import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { driveUntilSettled } from '../drive.js';
import { type DurableFlags, withDurableOptions, withRuntime } from '../durable-options.js';
import { loadFlowArg, noteFlowWarnings } from '../flow-args.js';
import { readInput } from '../read-input.js';
import { reportExecution } from '../report-execution.js';

/**
 * `plaita run`: durable on the embedded tier. The execution is stored (default the SQLite
 * file ./.plaita/plaita.db) and driven in this process to its end or its first suspension;
 * a suspended run prints the exact `plaita event …` command that resumes it later.
 */
export function registerRun(program: Command, context: CommandContext): void {
  withDurableOptions(
    program
      .command('run')
      .description('run a flow to its end or its first suspension, keeping its state in the store')
      .argument('<flow-file>', 'flow document (.json, .yaml, .yml)')
      .option(
        '-i, --input <json>',
        'input object as JSON, or @file (PLAITA_INPUT)',
        process.env.PLAITA_INPUT,
      ),
  ).action(async (file: string, opts: DurableFlags & { input?: string }) => {
    const input = readInput(opts.input);
    // Every durable command takes the flag; this one runs the flow here, on the embedded queue.
    if (opts.redisUrl)
      context
        .output()
        .note(
          'warning: --redis-url is ignored by run, which runs the flow in this process (use start and a worker for the Redis queue)',
        );
    await withRuntime(
      opts,
      async (runtime) => {
        const flow = await loadFlowArg(file, runtime.registry);
        noteFlowWarnings(context, flow);
        const executionId = await runtime.client.start(flow, input);
        const state = await driveUntilSettled(runtime, executionId, 0, opts.store);
        context.exit(reportExecution(context, state, opts.store));
      },
      { embedded: true, createsStore: true },
    );
  });
}
