// The public API of `plaita` (the package root). Names listed in the contract are never renamed or
// removed. Importing it loads no database driver and no prom-client: they are optional peer
// dependencies, each loaded when a class that needs it is built (a PeerDependencyMissingError
// names the package when it is not installed). The backend classes are also, preferably, in the
// subpaths that load their driver up front: `plaita/sqlite`, `plaita/postgres`, `plaita/redis`,
// `plaita/worker` (src/sqlite.ts, …; README "Package entry points").

// Engine
export { parseFlow, loadFlowFile, type ParseFlowOptions } from './engine/parse-flow.js';
export { runFlow } from './engine/run-flow.js';
export { stepFlow } from './engine/step-flow.js';
export { runStep, type StepOutcome, type StepRequest, type ResumeKind } from './engine/run-step.js';
export {
  rerunContext,
  type RerunOriginal,
  type RerunPlan,
  type RerunRequest,
} from './engine/rerun-context.js';
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
export { DEFAULT_LIMITS, type RuntimeLimits } from './flow/runtime-limits.js';

// Static analysis: what a flow will fail on at run time (docs/validate.md)
export {
  analyzeFlow,
  analyzeFlowSync,
  type AnalyzeOptions,
  type AnalyzeSyncOptions,
} from './flow/analysis/analyze-flow.js';
export {
  analyzeDocument,
  analyzeDocumentSync,
  type AnalyzeDocumentOptions,
  type AnalyzeDocumentSyncOptions,
} from './flow/analysis/analyze-document.js';
export {
  ISSUE_CODES,
  hasErrors,
  type FlowIssue,
  type IssueCode,
  type IssueSeverity,
} from './flow/analysis/flow-issue.js';
export type { FlowExists } from './flow/analysis/reference-issues.js';

// Errors
export {
  FlowError,
  NodeError,
  FlowResultError,
  type FlowErrorType,
  type FlowErrorName,
} from './errors/flow-errors.js';
export { PlaitaError, toErrorRecord, type ErrorRecord } from './errors/plaita-error.js';
export {
  StateSerializationError,
  StateTooLargeError,
  StateCorruptError,
} from './errors/state-errors.js';
export {
  StoreUnavailableError,
  FenceRejectedError,
  ExecutionExistsError,
  StoreConfigurationError,
  StoreClosedError,
  PeerDependencyMissingError,
  RedisCommandError,
  InvalidCursorError,
} from './errors/store-errors.js';
export {
  FlowDefinitionError,
  FlowVersionConflictError,
  FlowDefinitionMissingError,
  FlowNotLoadableError,
  type DefinitionIssue,
} from './errors/flow-definition-errors.js';
export { TerminalError, RetryableError } from './errors/node-errors.js';
export { LeaseLostError, WorkerStoppedError } from './errors/worker-errors.js';
export {
  UnknownExecutionError,
  ExecutionTerminalError,
  InvalidTransitionError,
  InputRejectedError,
  WaitTimeoutError,
  CancelRequestedError,
  RerunRefusedError,
} from './errors/execution-errors.js';

// State
export { encodeState, decodeState, encodeValue, decodeValue } from './state/codec.js';
export {
  newExecutionState,
  type ExecutionState,
  type ExecutionStatus,
} from './state/execution-state.js';

// Stores
export {
  DEFAULT_TENANT,
  type ExecutionStore,
  type ExecutionStoreOptions,
  type SaveOptions,
  type ListQuery,
  type ListPage,
  type ExecutionSummary,
  type Lease,
  type LeaseRequest,
  type ClaimResult,
} from './store/execution-store.js';
export type { FlowStore, StoredFlow } from './store/flow-store.js';
export { MemoryExecutionStore } from './backends/memory/memory-execution-store.js';
export { MemoryFlowStore } from './backends/memory/memory-flow-store.js';
// Also in `plaita/sqlite`, `plaita/postgres`, `plaita/redis`; here each loads its driver when built.
export { SqliteExecutionStore } from './backends/sqlite/sqlite-execution-store.js';
export { SqliteFlowStore } from './backends/sqlite/sqlite-flow-store.js';
export { PostgresExecutionStore } from './backends/postgres/postgres-execution-store.js';
export { PostgresFlowStore } from './backends/postgres/postgres-flow-store.js';
export { RedisExecutionStore } from './backends/redis/store/redis-execution-store.js';
export { RedisFlowStore } from './backends/redis/store/redis-flow-store.js';

// Distributed runtime (the queues load their driver when built; the worker is also `plaita/worker`)
export { RedisStreamQueue } from './backends/redis/queue/redis-stream-queue.js';
export { LocalQueue } from './backends/sqlite/queue/local-queue.js';
export type { TaskQueue, Delivery, DeadLetter, EnqueueOptions } from './queue/task-queue.js';
export { parseTaskMessage, type TaskMessage, type MessageKind } from './queue/task-message.js';
export { FlowWorker, type FlowWorkerOptions } from './worker/flow-worker.js';
export { WorkerMetrics } from './worker/worker-metrics.js';
export { reapStale, type ReapOptions } from './worker/reaper.js';
export {
  PlaitaClient,
  type PlaitaClientOptions,
  type StartOptions,
} from './client/plaita-client.js';
export { type Clock, type CancelTimer, systemClock } from './util/clock.js';
export { FakeClock } from './util/fake-clock.js';
