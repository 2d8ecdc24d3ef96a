// Read-modify-write under optimistic concurrency: retry a function while the API server answers 409 Conflict.
import { isConflict } from "./api-error.js";

export interface RetryBackoff {
  /** Attempts in all, the first included. */
  steps: number;
  /** Wait before the second attempt. */
  delayMs: number;
  /** Each later wait is the previous one times this. */
  factor: number;
  /** Each wait is stretched by up to this fraction, at random, so racing writers spread out. */
  jitter: number;
}

/** client-go's retry.DefaultRetry: 5 attempts 10 ms apart, jitter 0.1 — for conflicts between a few writers. */
export const defaultRetry: Readonly<RetryBackoff> = { steps: 5, delayMs: 10, factor: 1, jitter: 0.1 };

/**
 * Runs `fn` again while it throws a conflict (a stale resourceVersion), as client-go's retry.RetryOnConflict.
 * `fn` must read the object afresh on every call; any other error, or a conflict on the last attempt, is thrown.
 */
export function retryOnConflict<T>(fn: () => Promise<T>, backoff: RetryBackoff = defaultRetry): Promise<T> {
  return retryOnError(isConflict, fn, backoff);
}

/** Runs `fn` again while it throws an error `retriable` accepts, waiting per `backoff` in between (client-go retry.OnError). */
export async function retryOnError<T>(
  retriable: (e: unknown) => boolean,
  fn: () => Promise<T>,
  backoff: RetryBackoff = defaultRetry,
): Promise<T> {
  let delay = backoff.delayMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (attempt >= backoff.steps || !retriable(e)) throw e;
    }
    await new Promise((resolve) => setTimeout(resolve, delay * (1 + Math.random() * backoff.jitter)));
    delay *= backoff.factor;
  }
}
