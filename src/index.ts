/**
 * durable-agent-runner as a library: define tools, run a worker with them, start and read jobs.
 * The same entry points exist one by one as `durable-agent-runner/tools`, `/worker` and
 * `/client`.
 */
export * from './library/tools.js';
export * from './library/worker.js';
export * from './library/client.js';
