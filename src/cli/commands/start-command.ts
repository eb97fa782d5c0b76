import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import {
  type DurableFlags,
  refuseMemoryStore,
  withDurableOptions,
  withRuntime,
} from '../durable-options.js';
import { auditCliWrite } from '../cli-audit.js';
import { EXIT } from '../exit-codes.js';
import { loadFlowArg, noteFlowWarnings } from '../flow-args.js';
import { readInput } from '../read-input.js';

export function registerStart(program: Command, context: CommandContext): void {
  withDurableOptions(
    program
      .command('start')
      .description('enqueue an execution for the workers and print its id')
      .argument('<flow>', 'a flow file, or the flowId of a published flow')
      .option(
        '-i, --input <json>',
        'input object as JSON, or @file (PLAITA_INPUT)',
        process.env.PLAITA_INPUT,
      )
      .option(
        '--dedup-key <key>',
        'a repeated key returns the existing execution and starts nothing',
      )
      .option('--flow-version <v>', 'with a flowId: the published version (default the latest)'),
  ).action(
    async (
      flowArg: string,
      opts: DurableFlags & { input?: string; dedupKey?: string; flowVersion?: string },
    ) => {
      const input = readInput(opts.input);
      refuseMemoryStore(
        opts,
        'the execution it queues would be lost with it (`plaita run` runs a flow in this process)',
      );
      await withRuntime(
        opts,
        async (runtime) => {
          // A name that looks like a file is one: a missing file says so, not "no published flow".
          const isFile = existsSync(flowArg) || /\.(json|ya?ml)$/i.test(flowArg);
          const flow = isFile ? await loadFlowArg(flowArg, runtime.registry) : flowArg;
          if (typeof flow !== 'string') noteFlowWarnings(context, flow);
          const executionId = await runtime.client.start(flow, input, {
            ...(opts.dedupKey ? { dedupKey: opts.dedupKey } : {}),
            ...(opts.flowVersion ? { version: opts.flowVersion } : {}),
          });
          await auditCliWrite(runtime, opts, 'execution.start', executionId);
          context.output().result({ executionId, status: 'queued' }, executionId);
          context.exit(EXIT.ok);
        },
        { createsStore: true },
      );
    },
  );
}
