import type { Command } from 'commander';
import { runFlow } from '../../engine/run-flow.js';
import { FlowError } from '../../flow-errors.js';
import { randomExecutionId } from '../../util/ids.js';
import type { CommandContext } from '../command-context.js';
import { EXIT } from '../exit-codes.js';
import { cliRegistry, loadFlowArg } from '../flow-args.js';
import { humanValue } from '../output.js';
import { readInput } from '../read-input.js';
import { describeFlowError } from '../describe-error.js';

interface RunOptions {
  input?: string;
  nodes?: string;
  timeout?: string;
}

export function registerRun(program: Command, context: CommandContext): void {
  program
    .command('run')
    .description('run a flow to its end and print the result')
    .argument('<flow-file>', 'flow document (.json, .yaml, .yml)')
    .option('-i, --input <json>', 'input object as JSON, or @file', process.env.PLAITA_INPUT)
    .option('--nodes <modules>', 'comma-separated plugin modules to load (also PLAITA_NODE_MODULES)')
    .option('--timeout <duration>', 'run budget (ms or ISO 8601, e.g. PT30S)')
    .option('--store <url>', 'where executions are kept: memory | sqlite:PATH | postgres://… | redis://…', process.env.PLAITA_STORE)
    .action(async (file: string, opts: RunOptions) => {
      const out = context.output();
      const input = readInput(opts.input);
      const flow = await loadFlowArg(file, await cliRegistry(opts.nodes));
      const executionId = randomExecutionId();
      try {
        const result = await runFlow(flow, input, { executionId, ...(opts.timeout ? { timeout: opts.timeout } : {}) });
        out.result({ status: 'completed', executionId, flowId: flow.id, result }, humanValue(result));
        context.exit(EXIT.ok);
      } catch (error) {
        if (!(error instanceof FlowError)) throw error;
        out.result({ status: 'error', executionId, flowId: flow.id, error: error.toJSON() }, '');
        out.note(describeFlowError(error));
        context.exit(EXIT.failed);
      }
    });
}
