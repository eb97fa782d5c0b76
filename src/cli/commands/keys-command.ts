import type { Command } from 'commander';
import { AuditLog } from '../../server/audit-log.js';
import { ApiKeys } from '../../server/auth/api-keys.js';
import { PLATFORM_TENANT } from '../../store/control-store.js';
import { isRole, ROLES } from '../../server/auth/roles.js';
import type { CommandContext } from '../command-context.js';
import {
  type DurableFlags,
  refuseMemoryStore,
  requireExistingStore,
  withDurableOptions,
  withRuntime,
} from '../durable-options.js';
import { CliError, EXIT } from '../exit-codes.js';

/** `plaita keys create|list|revoke` (docs/http-api.md §2): API keys in the store the server uses. */
export function registerKeys(program: Command, context: CommandContext): void {
  const keys = program.command('keys').description('API keys of `plaita serve`');
  withDurableOptions(
    keys
      .command('create')
      .description('create a key and print its token once')
      .requiredOption('--name <name>', 'who or what uses it')
      .requiredOption('--role <role>', ROLES.join(' | ')),
  )
    .option(
      '--key-tenant <tenant>',
      'the tenant the key acts for; * = platform (default: --tenant or "default")',
    )
    .action(async (opts: DurableFlags & { name: string; role: string; keyTenant?: string }) => {
      if (!isRole(opts.role))
        throw new CliError(`--role ${opts.role}: expected ${ROLES.join(' | ')}`, EXIT.usage);
      const role = opts.role;
      const tenant = opts.keyTenant ?? opts.tenant ?? 'default';
      requireStore(opts);
      await withRuntime(opts, async (runtime) => {
        const { key, token } = await new ApiKeys(runtime.control).create({
          name: opts.name,
          role,
          tenant,
        });
        await audit(runtime.control, 'api_key.create', key.id, key.tenant, opts);
        context
          .output()
          .result(
            { key, token },
            `${token}\n(key ${key.id}, ${key.role}, tenant ${key.tenant}; the token is shown only now)`,
          );
      });
      context.exit(EXIT.ok);
    });
  withDurableOptions(keys.command('list').description('every key (never their secrets)')).action(
    async (opts: DurableFlags) => {
      requireStore(opts);
      await withRuntime(opts, async (runtime) => {
        const list = await new ApiKeys(runtime.control).list(null);
        const text = list
          .map(
            (k) =>
              `${k.id}  ${k.role.padEnd(8)} ${k.tenant.padEnd(12)} ${k.name}${k.revokedAt ? `  (revoked ${k.revokedAt})` : ''}`,
          )
          .join('\n');
        context.output().result({ items: list }, text || '(no keys)');
      });
      context.exit(EXIT.ok);
    },
  );
  withDurableOptions(
    keys.command('revoke').description('revoke a key').argument('<id>', 'the key id'),
  ).action(async (id: string, opts: DurableFlags) => {
    requireStore(opts);
    await withRuntime(opts, async (runtime) => {
      const keys = new ApiKeys(runtime.control);
      const key = await keys.get(id);
      if (!key || !(await keys.revoke(id))) throw new CliError(`no API key ${id}`, EXIT.usage);
      await audit(runtime.control, 'api_key.revoke', id, key.tenant, opts);
      context.output().result({ revoked: id }, `revoked ${id}`);
    });
    context.exit(EXIT.ok);
  });
}

/**
 * Keys belong to the store a server uses: in a directory with no store, the default SQLite file
 * would be made anew, and the key printed would open nothing.
 */
function requireStore(opts: DurableFlags): void {
  refuseMemoryStore(opts, 'a key made there would open no server');
  requireExistingStore(opts, 'API keys are kept in the store `plaita serve` uses');
}

/** Audited like the API's own key writes: a platform key in the tenant this command acts for. */
function audit(
  control: ConstructorParameters<typeof AuditLog>[0],
  action: string,
  keyId: string,
  keyTenant: string,
  opts: DurableFlags,
): Promise<void> {
  const tenant = keyTenant === PLATFORM_TENANT ? (opts.tenant ?? 'default') : keyTenant;
  return new AuditLog(control, () => null).recordLocal(action, keyId, tenant);
}
