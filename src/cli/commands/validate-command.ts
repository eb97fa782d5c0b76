import type { Command } from 'commander';
import { FlowDefinitionError } from '../../errors.js';
import { cliRegistry, definitionError, loadFlowArg } from '../flow-args.js';
import { EXIT } from '../exit-codes.js';
import type { CommandContext } from '../command-context.js';

export function registerValidate(program: Command, context: CommandContext): void {
  program
    .command('validate')
    .description('check a flow document; print every problem with its path (exit 2 when invalid)')
    .argument('<flow-file>', 'flow document (.json, .yaml, .yml)')
    .option(
      '--nodes <modules>',
      'comma-separated plugin modules to load (also PLAITA_NODE_MODULES)',
    )
    .action(async (file: string, opts: { nodes?: string }) => {
      const out = context.output();
      try {
        const flow = await loadFlowArg(file, await cliRegistry(opts.nodes));
        const warnings = flow.warnings.map((w) => `  warning: ${w}`).join('\n');
        out.result(
          { valid: true, flowId: flow.id, nodes: flow.nodes.length, warnings: flow.warnings },
          `${file}: valid (${flow.nodes.length} nodes${flow.id ? `, flow '${flow.id}'` : ''})` +
            (warnings ? '\n' + warnings : ''),
        );
        context.exit(EXIT.ok);
      } catch (error) {
        if (error instanceof FlowDefinitionError) throw definitionError(file, error);
        throw error;
      }
    });
}
