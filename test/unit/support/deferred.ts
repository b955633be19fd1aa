/** A promise settled from outside: lets a test decide when a tool body finishes. */
export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((settle, fail) => {
    resolve = settle;
    reject = fail;
  });
  return { promise, resolve, reject };
}

/** Lets every queued microtask and pending timer callback run once. */
export function settle(): Promise<void> {
  return new Promise((done) => setImmediate(done));
}

/** Waits, one macrotask at a time, until `condition` holds; fails after `rounds` tries. */
export async function until(condition: () => boolean, rounds = 200): Promise<void> {
  for (let round = 0; round < rounds; round += 1) {
    if (condition()) return;
    await settle();
  }
  throw new Error('condition never held');
}
