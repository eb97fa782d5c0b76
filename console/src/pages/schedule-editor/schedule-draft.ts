import { ApiError, messageOf } from '../../api/client';
import type { Schedule } from '../../api/types';

/** The schedule form as typed (the input as JSON text). */
export interface Draft {
  flowId: string;
  version: string;
  cron: string;
  timezone: string;
  input: string;
  overlap: Schedule['overlap'];
  enabled: boolean;
}

export type DraftErrors = Partial<Record<keyof Draft | 'other', string>>;

/** A new schedule's form. */
export const EMPTY: Draft = {
  flowId: '',
  version: '',
  cron: '*/5 * * * *',
  timezone: 'UTC',
  input: '{}',
  overlap: 'allow',
  enabled: true,
};

export function draftOf(schedule: Schedule): Draft {
  return {
    flowId: schedule.flowId,
    version: schedule.version ?? '',
    cron: schedule.cron,
    timezone: schedule.timezone,
    input: JSON.stringify(schedule.input, null, 2),
    overlap: schedule.overlap,
    enabled: schedule.enabled,
  };
}

/** The create / edit body, or the input's error (the one field read here). */
export function bodyOf(draft: Draft): { body: Record<string, unknown> } | { errors: DraftErrors } {
  let input: unknown;
  try {
    input = JSON.parse(draft.input || '{}');
  } catch (e) {
    return { errors: { input: `Not JSON: ${messageOf(e)}` } };
  }
  return {
    body: {
      flowId: draft.flowId.trim(),
      version: draft.version.trim() || null,
      cron: draft.cron.trim(),
      timezone: draft.timezone.trim() || 'UTC',
      input,
      overlap: draft.overlap,
      enabled: draft.enabled,
    },
  };
}

/** A refusal on the form's fields: those the server named, else cron or zone by its words. */
export function errorsOf(error: unknown): DraftErrors {
  if (!(error instanceof ApiError)) return { other: messageOf(error) };
  const named: DraftErrors = {};
  for (const name of ['flowId', 'version', 'cron', 'timezone', 'input', 'overlap'] as const) {
    const message = error.field(name);
    if (message) named[name] = message;
  }
  if (Object.keys(named).length) return named;
  // Cron and time zone problems come back as a detail without a field path.
  if (/cron|pattern/i.test(error.detail)) return { cron: error.detail };
  if (/time ?zone/i.test(error.detail)) return { timezone: error.detail };
  return { other: error.detail };
}
