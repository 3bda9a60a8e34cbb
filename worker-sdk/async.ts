/** Small abort-aware async helpers. */

/** Waits `ms`; resolves early (never rejects) when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Outcome of {@link raceAbort}. */
export type Raced<T> = { aborted: true } | { aborted: false; value: T };

/**
 * Settles with the promise's value, or with `{aborted: true}` as soon as `signal` aborts. A later
 * rejection of the abandoned promise is swallowed; a rejection before the abort is rethrown.
 */
export function raceAbort<T>(promise: PromiseLike<T>, signal: AbortSignal): Promise<Raced<T>> {
  return new Promise<Raced<T>>((resolve, reject) => {
    const onAbort = (): void => resolve({ aborted: true });
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    Promise.resolve(promise).then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve({ aborted: false, value });
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
