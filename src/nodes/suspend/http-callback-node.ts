import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { builtinNode, enumField } from '../builtin-node.js';
import { resumeSuspended, serviceState, serviceValue } from './suspend-state.js';

/** docs/flow-format.md §3.18 `http_callback`: waits for a callback request; the token is stored in the checkpoint. */
export const httpCallbackNode = builtinNode({
  type: 'http_callback',
  suspending: true,
  schema: z.looseObject({
    callback_path: z.string().optional(),
    callback_method: enumField(['POST', 'GET', 'PUT', 'DELETE']).optional(),
    callback_timeout_minutes: z.number().positive().optional(),
    require_auth: z.boolean().optional(),
    auth_type: enumField(['token', 'basic', 'signature']).optional(),
    auth_token: z.string().optional(),
    validate_headers: z.record(z.string(), z.unknown()).optional(),
    validate_params: z.record(z.string(), z.unknown()).optional(),
    success_response: z.unknown().optional(),
    error_response: z.unknown().optional(),
  }),
  load: (raw) => ({
    callbackPath: raw.callback_path ?? null,
    method: raw.callback_method ?? 'POST',
    timeoutMinutes: raw.callback_timeout_minutes ?? 60,
    requireAuth: raw.require_auth ?? true,
    authType: raw.auth_type ?? 'token',
    authToken: raw.auth_token ?? null,
    validateHeaders: raw.validate_headers ?? {},
    validateParams: raw.validate_params ?? {},
    successResponse: raw.success_response ?? { status: 'success' },
    errorResponse: raw.error_response ?? { status: 'error' },
  }),
  async run(ctx) {
    const d = ctx.def;
    const path =
      d.callbackPath === null
        ? `/callback/${ctx.flowId ?? ''}/${ctx.nodeId}/${ctx.executionId}`
        : String(await serviceValue(ctx, d.callbackPath));
    const token =
      d.authToken === null ? randomBytes(24).toString('hex') : await serviceValue(ctx, d.authToken);
    return serviceState(
      ctx,
      'http_callback',
      {},
      {
        callback_config: {
          path,
          method: d.method,
          timeout_minutes: d.timeoutMinutes,
          url: ctx.options.callbackBaseUrl.replace(/\/$/, '') + path,
        },
        auth_config: { require_auth: d.requireAuth, auth_type: d.authType, auth_token: token },
        validation_config: { headers: d.validateHeaders, params: d.validateParams },
        response_config: { success_response: d.successResponse, error_response: d.errorResponse },
      },
    );
  },
  resume: resumeSuspended,
  wait: (def) => ({ timeoutMs: def.timeoutMinutes * 60_000 }),
});
