// Read-modify-write under optimistic concurrency: retry a function while the API server answers 409 Conflict.
import { Backoff, type BackoffSettings } from "../wait/backoff.js";
import { isConflict } from "./api-error.js";

/** The waits between attempts (initialMs before the second; jitter spreads racing writers out) and their number. */
export interface RetryBackoff extends BackoffSettings {
  /** Attempts in all, the first included. */
  steps: number;
}

/** client-go's retry.DefaultRetry: 5 attempts 10 ms apart, jitter 0.1 — for conflicts between a few writers. */
export const defaultRetry: Readonly<RetryBackoff> = { steps: 5, initialMs: 10, factor: 1, jitter: 0.1 };

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
  const delays = new Backoff(backoff);
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (attempt >= backoff.steps || !retriable(e)) throw e;
    }
    const delay = delays.next();
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
