// `plaita/server`: the HTTP API of `plaita serve` (and its console) as a Hono app — a standard
// `fetch` handler a user can mount in a server of their own — with the background tasks it
// needs (schedules, bulk operations, stream shutdown). No driver of its own: the stores and
// the queue are passed in; the control store of each backend comes from its subpath.
export { createApiApp, type ApiApp } from './server/api-app.js';
export { listenApiApp, type HttpListenOptions } from './server/http-listener.js';
export type { ApiAppOptions } from './server/api-services.js';
export { startServerTasks, type ServerTask } from './server/server-tasks.js';
export { Scheduler, type SchedulerOptions } from './control/schedules/scheduler.js';
export type { ControlStore } from './store/control-store.js';
export { MemoryControlStore } from './backends/memory/memory-control-store.js';
export { startServe, type ServeOptions, type RunningServe } from './server/start-serve.js';
export { ListenError } from './errors/server-errors.js';
