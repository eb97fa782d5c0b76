import type { Flow } from '../flow/flow.js';
import type { ExecutionMode } from '../flow/node-type.js';
import type { Logger } from '../util/logger.js';

/** Every hook event carries these (docs/flow-format.md §8). */
export interface HookEventBase {
  flow: Flow;
  executionId: string;
  parentExecutionId?: string;
  mode: ExecutionMode;
}

export interface HookErrorPayload {
  code: number;
  message: string;
}

export interface FlowHooks {
  onFlowStart?(event: HookEventBase): unknown;
  onFlowEnd?(event: HookEventBase & { result?: unknown; error?: HookErrorPayload }): unknown;
  onNodeStart?(event: HookEventBase & { node: string }): unknown;
  onNodeEnd?(
    event: HookEventBase & { node: string; result?: unknown; error?: HookErrorPayload },
  ): unknown;
  onNodeSuspend?(event: HookEventBase & { node: string }): unknown;
  onFlowSuspend?(event: HookEventBase & { node: string }): unknown;
  onFlowResume?(
    event: HookEventBase & { node: string; resumeType: string; data: unknown },
  ): unknown;
  onNodeResume?(
    event: HookEventBase & { node: string; resumeType: string; data: unknown },
  ): unknown;
}

export type HookName = keyof FlowHooks;

/** Awaits each hook in registration order; a hook that throws is logged and ignored. */
export async function fireHooks<K extends HookName>(
  hooks: readonly FlowHooks[],
  name: K,
  event: Parameters<NonNullable<FlowHooks[K]>>[0],
  log: Logger,
): Promise<void> {
  for (const hook of hooks) {
    const fn = hook[name] as ((e: typeof event) => unknown) | undefined;
    if (!fn) continue;
    try {
      await fn.call(hook, event);
    } catch (error) {
      log.warn({ hook: name, err: error }, 'a lifecycle hook failed; ignored');
    }
  }
}

/** Hook error payloads use -500 for a non-integer code (docs/flow-format.md §7.1). */
export function hookError(error: { code?: unknown; message: string }): HookErrorPayload {
  return {
    code: Number.isInteger(error.code) ? (error.code as number) : -500,
    message: error.message,
  };
}
