/** Calls and total milliseconds per activity, since the last `takeActivityTimes`. */
export interface ActivityTime {
  calls: number;
  totalMs: number;
}

let times = new Map<string, ActivityTime>();

/**
 * Wraps every activity so the bench can see where a job's time goes (the model call, tool
 * bodies, the `recordProgress` local activity). Counts every attempt, retries included.
 */
export function timedActivities<T extends Record<string, (...args: never[]) => Promise<unknown>>>(
  activities: T,
): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, activity] of Object.entries(activities)) {
    wrapped[name] = async (...args: never[]) => {
      const started = performance.now();
      try {
        return await activity(...args);
      } finally {
        const time = times.get(name) ?? { calls: 0, totalMs: 0 };
        time.calls += 1;
        time.totalMs += performance.now() - started;
        times.set(name, time);
      }
    };
  }
  return wrapped as T;
}

/** The times gathered since the last call, and a fresh start. */
export function takeActivityTimes(): Map<string, ActivityTime> {
  const taken = times;
  times = new Map();
  return taken;
}
