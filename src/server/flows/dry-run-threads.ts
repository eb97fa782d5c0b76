import type { RuntimeLimits } from '../../flow/runtime-limits.js';
import { ThreadPool, threadScript } from '../../util/thread-pool.js';
import { PlaitaError } from '../../errors/plaita-error.js';
import { checkDryRun, type DryRunHost, type DryRunOutcome, type DryRunRequest } from './dry-run.js';

/** What a dry-run thread is started with (workerData). */
export interface ThreadSetup {
  /** The plugin modules the server loaded, so the thread knows the same node types. */
  nodeModules: readonly string[];
  limits: Partial<RuntimeLimits>;
}

/** One dry-run as it crosses to a thread. */
export interface DryRunMessage {
  request: DryRunRequest;
  tenantId: string;
  timeoutMs: number;
}

export interface DryRunThreadOptions extends ThreadSetup {
  threads: number;
}

/** Past the run's own budget (which ends the walk itself), the thread is ended. */
const GRACE_MS = 2_000;

const SCRIPT = threadScript(import.meta.url, './dry-run-thread.js');

/**
 * Dry-runs on worker threads (issue: a heavy expression or code in a dry-run held the HTTP
 * event loop for seconds): the request is checked here (its 4xx answers as before), the walk runs
 * on a thread, tenants taking turns. A client that goes away ends its run's thread.
 */
export class DryRunThreads {
  readonly #pool: ThreadPool;

  constructor(options: DryRunThreadOptions) {
    const setup: ThreadSetup = { nodeModules: options.nodeModules, limits: options.limits };
    this.#pool = new ThreadPool({ script: SCRIPT, size: options.threads, workerData: setup });
  }

  async run(
    request: DryRunRequest,
    host: DryRunHost & { readFlow: (flowId: string, version: string | null) => Promise<unknown> },
  ): Promise<DryRunOutcome> {
    checkDryRun(request, host);
    const message: DryRunMessage = { request, tenantId: host.tenantId, timeoutMs: host.timeoutMs };
    try {
      return (await this.#pool.run({
        tenant: host.tenantId,
        message,
        deadlineMs: host.timeoutMs + GRACE_MS,
        onDeadline: () => new DryRunThreadTimeout(),
        answer: (asked) => {
          const { flowId, version } = asked as { flowId: string; version: string | null };
          return host.readFlow(flowId, version);
        },
        ...(host.signal ? { signal: host.signal } : {}),
      })) as DryRunOutcome;
    } catch (error) {
      if (!(error instanceof DryRunThreadTimeout)) throw error;
      return {
        status: 'error',
        error: { code: 'timeout', type: 'timeout', nodeId: null, message: error.message },
        trace: [],
      };
    }
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}

/** The pool's deadline, told apart from a thread's failure; answered as the run's error. */
class DryRunThreadTimeout extends PlaitaError {
  override readonly name = 'DryRunThreadTimeout';
  readonly code = 'timeout';
  readonly retryable = false;

  constructor() {
    super('the dry-run ran past its budget in one call and its thread was ended');
  }
}
