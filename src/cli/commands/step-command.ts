import type { Command } from 'commander';
import { stepFlow } from '../../engine/step-flow.js';
import type { Step } from '../../engine/step.js';
import { FlowError } from '../../errors/flow-errors.js';
import type { CommandContext } from '../command-context.js';
import { describeFlowError } from '../describe-error.js';
import { EXIT } from '../exit-codes.js';
import { cliRegistry, loadFlowArg, noteFlowWarnings } from '../flow-args.js';
import { jsonReplacer } from '../output.js';
import { limitsFromEnv } from '../operator-limits.js';
import { readInput } from '../read-input.js';

/** A step as printed: everything but the (large) checkpoint context. */
function printable(step: Step): Record<string, unknown> {
  const { context: _context, ...rest } = step;
  return rest;
}

export function registerStep(program: Command, context: CommandContext): void {
  program
    .command('step')
    .description("debug mode: print each node's result in order")
    .argument('<flow-file>', 'flow document (.json, .yaml, .yml)')
    .option(
      '-i, --input <json>',
      'input object as JSON, or @file (PLAITA_INPUT)',
      process.env.PLAITA_INPUT,
    )
    .option(
      '--nodes <modules>',
      'comma-separated plugin modules to load (also PLAITA_NODE_MODULES)',
    )
    .action(async (file: string, opts: { input?: string; nodes?: string }) => {
      const out = context.output();
      const input = readInput(opts.input);
      const flow = await loadFlowArg(file, await cliRegistry(opts.nodes));
      noteFlowWarnings(context, flow);
      const steps: Array<Record<string, unknown>> = [];
      const lines: string[] = [];
      try {
        for await (const step of stepFlow(flow, input, { limits: limitsFromEnv() })) {
          steps.push(printable(step));
          lines.push(
            `${step.nodeId ?? '(end)'} [${step.type ?? ''}]${step.isEnd ? ' end' : ''}: ${JSON.stringify(step.result, jsonReplacer)}`,
          );
          if (!out.json) out.result({}, lines[lines.length - 1]!);
        }
        if (out.json) out.result({ status: 'completed', steps }, '');
        context.exit(EXIT.ok);
      } catch (error) {
        if (!(error instanceof FlowError)) throw error;
        if (out.json) out.result({ status: 'error', steps, error: error.toJSON() }, '');
        out.note(describeFlowError(error));
        context.exit(EXIT.failed);
      }
    });
}
