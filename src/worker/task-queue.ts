/** The task queue agent jobs run on unless told otherwise (`DAR_TASK_QUEUE`). */
export const DEFAULT_TASK_QUEUE = process.env.DAR_TASK_QUEUE ?? 'durable-agent-runner';
