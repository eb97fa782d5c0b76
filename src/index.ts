// The public API: the only barrel. Names listed in the contract are never renamed or removed.

// Engine
export { parseFlow, loadFlowFile, type ParseFlowOptions } from './engine/parse-flow.js';
export { runFlow } from './engine/run-flow.js';
export { stepFlow } from './engine/step-flow.js';
export { runStep, type StepOutcome, type StepRequest, type ResumeKind } from './engine/run-step.js';
export type { Step } from './engine/step.js';
export type { Waiting } from './engine/suspension.js';
export type { EngineOptions } from './engine/engine-options.js';
export type { FlowHooks, HookEventBase } from './engine/hooks.js';
export type { FlowSource } from './engine/to-flow.js';
export type { Flow, LoadedNode } from './flow/flow.js';
export type {
  NodeContext,
  NodeDef,
  NodeType,
  CommonNodeDef,
  HandlerDef,
  ExecutionMode,
  EventSubscriptions,
  ResolveFlow,
  ResumeType,
} from './flow/node-type.js';
export { matchesType, parseTypeSchema, type TypeSchema } from './flow/type-schema.js';
export {
  NodeRegistry,
  defineNode,
  type NodeClass,
  type NodeDefinition,
} from './nodes/node-registry.js';
export { defaultRegistry, createDefaultRegistry } from './nodes/default-registry.js';
export { loadNodeModules } from './nodes/plugin-modules.js';
export {
  FunctionRegistry,
  defaultFunctions,
  type FunctionOptions,
} from './expression/function-registry.js';
export type { Condition } from './expression/condition.js';

// Errors
export {
  FlowError,
  NodeError,
  FlowResultError,
  type FlowErrorType,
  type FlowErrorName,
} from './flow-errors.js';
export {
  PlaitaError,
  StateSerializationError,
  StateTooLargeError,
  StateCorruptError,
  StoreUnavailableError,
  FenceRejectedError,
  FlowDefinitionError,
  TerminalError,
  RetryableError,
  FlowVersionConflictError,
  LeaseLostError,
  FlowDefinitionMissingError,
  UnknownExecutionError,
  ExecutionTerminalError,
  InvalidTransitionError,
  type ErrorRecord,
  type DefinitionIssue,
} from './errors.js';

// State
export { encodeState, decodeState, encodeValue, decodeValue } from './state/codec.js';
export {
  newExecutionState,
  type ExecutionState,
  type ExecutionStatus,
} from './state/execution-state.js';
