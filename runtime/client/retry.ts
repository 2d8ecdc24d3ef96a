// Read-modify-write under optimistic concurrency: retry a function while the API server answers 409 Conflict.
import { type Clock, realClock, sleepOn } from "../clock/clock.js";
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
export function retryOnConflict<T>(
  fn: () => Promise<T>,
  backoff: RetryBackoff = defaultRetry,
  clock: Clock = realClock,
): Promise<T> {
  return retryOnError(isConflict, fn, backoff, clock);
}

/** Runs `fn` again while it throws an error `retriable` accepts, waiting per `backoff` in between (client-go retry.OnError). */
export async function retryOnError<T>(
  retriable: (e: unknown) => boolean,
  fn: () => Promise<T>,
  backoff: RetryBackoff = defaultRetry,
  clock: Clock = realClock,
): Promise<T> {
  const delays = new Backoff(backoff, clock);
  const sleep = sleepOn(clock);
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (attempt >= backoff.steps || !retriable(e)) throw e;
    }
    await sleep(delays.next());
  }
}
