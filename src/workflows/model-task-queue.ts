import { REAL_PROVIDERS } from '../providers/real-providers.js';

/**
 * Marks histories whose model calls go through a task queue of their provider's own. A history
 * without it (recorded before) keeps calling the model on the job's task queue, so it replays.
 */
export const MODEL_TASK_QUEUE_PATCH = 'dar-model-task-queue';

/**
 * The providers whose model calls have a task queue of their own: the built-in ones. A model of
 * any other provider is called on the job's task queue, where the worker fails it at once with a
 * configuration error (no worker would poll a queue named after an unknown provider, and the job
 * would wait forever).
 */
export const MODEL_QUEUE_PROVIDERS: readonly string[] = [
  'scripted',
  ...REAL_PROVIDERS.map((spec) => spec.name),
];

/** The task queue of one provider's model calls for the jobs of `taskQueue`. */
export function providerTaskQueue(taskQueue: string, provider: string): string {
  return `${taskQueue}-model-${provider}`;
}

/** The provider part of `provider:model-id` ('' when there is none). */
export function providerOf(model: string): string {
  const separator = model.indexOf(':');
  return separator > 0 ? model.slice(0, separator) : '';
}

/**
 * Where the model call of a job on `taskQueue` with `model` goes: its provider's task queue, so
 * that the calls of every job share the provider's pacing (rate and concurrency, set on the
 * worker), or the job's own task queue for a provider without one.
 */
export function modelTaskQueue(taskQueue: string, model: string): string {
  const provider = providerOf(model);
  return MODEL_QUEUE_PROVIDERS.includes(provider)
    ? providerTaskQueue(taskQueue, provider)
    : taskQueue;
}
