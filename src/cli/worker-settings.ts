import type { Command } from 'commander';
import { positiveInteger } from './positive-integer.js';
import { nonNegativeNumber, numberEnv } from './runtime.js';

/** The worker's own flags, taken by `plaita worker` and by `plaita serve` for its in-process worker. */
export interface WorkerSettingFlags {
  maxDeliveries?: string;
  leaseTtlMs?: string;
  visibilityTimeoutMs?: string;
  drainTimeoutMs?: string;
  checkpointIntervalMs?: string;
}

export interface WorkerSettings {
  maxDeliveries?: number;
  leaseTtlMs?: number;
  visibilityTimeoutMs?: number;
  drainTimeoutMs?: number;
  checkpointIntervalMs?: number;
}

export function withWorkerSettingOptions(command: Command): Command {
  return command
    .option('--max-deliveries <n>', 'PLAITA_MAX_DELIVERIES (default 5)')
    .option('--lease-ttl-ms <ms>', 'PLAITA_LEASE_TTL_MS (default 30000)')
    .option('--visibility-timeout-ms <ms>', 'PLAITA_VISIBILITY_TIMEOUT_MS (default 30000)')
    .option('--drain-timeout-ms <ms>', 'PLAITA_DRAIN_TIMEOUT_MS (default 30000)')
    .option(
      '--checkpoint-interval-ms <ms>',
      'longest run of replayable nodes left unsaved; 0 saves every node (PLAITA_CHECKPOINT_INTERVAL_MS, default 200)',
    );
}

/** The flag a variable stands for: PLAITA_MAX_DELIVERIES → --max-deliveries. */
const flagOf = (env: string): string =>
  `--${env.slice('PLAITA_'.length).toLowerCase().replace(/_/g, '-')}`;

/** A number from its flag, else its variable; checked, named as typed. */
export function numberSetting(flag: string | undefined, env: string): number | undefined {
  return flag === undefined
    ? numberEnv(env)
    : // Named as typed, value included, like a variable's: `--concurrency "abc"`.
      nonNegativeNumber(flag, `${flagOf(env)} ${JSON.stringify(flag)}`);
}

/** A count (of messages, of deliveries): 0 or 1.5 mean nothing, so they are refused. */
export function countSetting(flag: string | undefined, env: string): number | undefined {
  return flag === undefined ? numberEnv(env) : positiveInteger(flag, flagOf(env));
}

/** Every setting given by a flag or a variable; the absent ones are left out (the defaults hold). */
export function workerSettingsFrom(flags: WorkerSettingFlags): WorkerSettings {
  const settings: WorkerSettings = {};
  const maxDeliveries = countSetting(flags.maxDeliveries, 'PLAITA_MAX_DELIVERIES');
  const leaseTtlMs = numberSetting(flags.leaseTtlMs, 'PLAITA_LEASE_TTL_MS');
  const visibilityTimeoutMs = numberSetting(
    flags.visibilityTimeoutMs,
    'PLAITA_VISIBILITY_TIMEOUT_MS',
  );
  const drainTimeoutMs = numberSetting(flags.drainTimeoutMs, 'PLAITA_DRAIN_TIMEOUT_MS');
  if (maxDeliveries !== undefined) settings.maxDeliveries = maxDeliveries;
  if (leaseTtlMs !== undefined) settings.leaseTtlMs = leaseTtlMs;
  if (visibilityTimeoutMs !== undefined) settings.visibilityTimeoutMs = visibilityTimeoutMs;
  if (drainTimeoutMs !== undefined) settings.drainTimeoutMs = drainTimeoutMs;
  const checkpointIntervalMs = numberSetting(
    flags.checkpointIntervalMs,
    'PLAITA_CHECKPOINT_INTERVAL_MS',
  );
  if (checkpointIntervalMs !== undefined) settings.checkpointIntervalMs = checkpointIntervalMs;
  return settings;
}
