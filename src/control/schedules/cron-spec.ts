import { Cron } from 'croner';
import { InvalidRequestError } from '../../errors/control-errors.js';

/**
 * A schedule's timing: a cron pattern of 5 fields (minute precision) or 6 (with seconds) in an
 * IANA time zone (default UTC). Croner evaluates it; DST gaps and repeats follow croner's rules.
 */
export class CronSpec {
  readonly #cron: Cron;

  /** `from`: where the request carried the pattern and zone, for the problem's paths. */
  constructor(
    readonly pattern: string,
    readonly timezone: string,
    from: 'body' | 'query' = 'body',
  ) {
    this.#cron = parse(pattern, timezone, from);
  }

  /**
   * A pattern no date matches (the 30th of February): accepted by croner, it would be a
   * schedule that silently never fires. Checked when a schedule is written, not when read.
   */
  static forWriting(pattern: string, timezone: string, from: 'body' | 'query' = 'body'): CronSpec {
    const spec = new CronSpec(pattern, timezone, from);
    if (spec.next(new Date()) === null)
      throw new InvalidRequestError(`cron "${pattern}" matches no date: it would never fire`, {
        fieldIssues: [
          { path: `${from}.cron`, message: 'matches no date (a day the month never has?)' },
        ],
      });
    return spec;
  }

  /** The first slot strictly after `after`, or null when the pattern never fires again. */
  next(after: Date): Date | null {
    return this.#cron.nextRun(after);
  }

  /** The next `count` slots strictly after `after`. */
  nextRuns(count: number, after: Date): Date[] {
    return this.#cron.nextRuns(count, after);
  }

  /** The latest slot at or before `at`, or null. */
  latestAtOrBefore(at: Date): Date | null {
    // previousRuns is strict: ask from just after `at`, so a slot exactly at `at` counts.
    return this.#cron.previousRuns(1, new Date(at.getTime() + 1))[0] ?? null;
  }
}

function parse(pattern: string, timezone: string, from: 'body' | 'query'): Cron {
  const fields = pattern.trim().split(/\s+/).length;
  if (fields !== 5 && fields !== 6)
    throw new InvalidRequestError(
      `cron "${pattern}" has ${fields} fields; 5 (minute hour day month weekday) or 6 (seconds first)`,
      {
        fieldIssues: [
          { path: `${from}.cron`, message: `${fields} fields: 5 or 6 space-separated fields` },
        ],
      },
    );
  if (!isTimeZone(timezone))
    throw new InvalidRequestError(`timezone "${timezone}" is not an IANA time zone`, {
      fieldIssues: [
        { path: `${from}.timezone`, message: 'an IANA zone such as Europe/Paris or UTC' },
      ],
    });
  try {
    const cron = new Cron(pattern, { timezone, paused: true });
    cron.nextRun();
    return cron;
  } catch (error) {
    throw new InvalidRequestError(
      `cron "${pattern}": ${(error as Error).message.replace(/^CronPattern: /, '')}`,
      {
        fieldIssues: [{ path: `${from}.cron`, message: (error as Error).message }],
      },
    );
  }
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
