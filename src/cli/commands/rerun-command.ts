import type { Command } from 'commander';
import { rerunDryRun, rerunExecution } from '../../control/rerun-execution.js';
import { UnknownExecutionError } from '../../errors/execution-errors.js';
import { auditCliWrite } from '../cli-audit.js';
import type { CommandContext } from '../command-context.js';
import { driveUntilSettled } from '../drive.js';
import { type DurableFlags, withDurableOptions, withRuntime } from '../durable-options.js';
import { EXIT } from '../exit-codes.js';
import { readInput } from '../read-input.js';
import { reportExecution } from '../report-execution.js';
import type { Runtime } from '../runtime.js';

type RerunFlags = DurableFlags & { from: string; input?: string; dryRun: boolean };

/**
 * `plaita rerun <id> --from <node>`: a new execution of the same pinned flow that keeps the
 * results of the nodes before `--from` and runs from it (docs/http-api.md §4 rerun, the same
 * control service). With `--dry-run` it only lists what would run again.
 */
export function registerRerun(program: Command, context: CommandContext): void {
  withDurableOptions(
    program
      .command('rerun')
      .description(
        'start a new execution that keeps the results of the nodes before --from and runs from it',
      )
      .argument('<executionId>', 'the execution to rerun')
      .requiredOption('--from <nodeId>', 'the node to run from (it must have run)')
      .option('-i, --input <json>', 'a new input object as JSON, or @file (default: the same)')
      .option(
        '--dry-run',
        'only list what would run again, effectful nodes marked (PLAITA_DRY_RUN=1)',
        process.env.PLAITA_DRY_RUN === '1',
      ),
  ).action(async (executionId: string, opts: RerunFlags) => {
    const ask = {
      fromNode: opts.from,
      ...(opts.input === undefined ? {} : { input: readInput(opts.input) }),
    };
    await withRuntime(opts, async (runtime) => {
      const original = await runtime.client.get(executionId);
      if (!original) throw new UnknownExecutionError(`no execution ${executionId}`);
      const services = servicesOf(runtime);
      if (opts.dryRun) {
        const willRun = await rerunDryRun(services, original, ask);
        const lines = willRun.map(
          (n) => `  ${n.nodeId}  ${n.type}${n.effectful ? '  effectful: acts again' : ''}`,
        );
        context.output().result({ willRun }, `would run again:\n${lines.join('\n')}`);
        return context.exit(EXIT.ok);
      }
      const rerunId = await rerunExecution(services, original, ask);
      await auditCliWrite(
        runtime,
        opts,
        'execution.rerun',
        `${executionId} -> ${rerunId} from ${ask.fromNode}`,
      );
      if (!runtime.embedded) {
        context
          .output()
          .result(
            { executionId: rerunId, rerunOf: executionId, fromNode: ask.fromNode },
            `started ${rerunId}, a rerun of ${executionId} from '${ask.fromNode}'`,
          );
        return context.exit(EXIT.ok);
      }
      const state = await driveUntilSettled(runtime, rerunId, 0, opts.store);
      context.exit(reportExecution(context, state, opts.store));
    });
  });
}

function servicesOf(runtime: Runtime) {
  const { flows, control, client, registry } = runtime;
  return { flows, control, client, registry };
}
