// The runtime's one poll-until loop (apimachinery's wait.PollUntilContextTimeout, immediate): a check now and then
// every interval, on an injected Clock so a FakeClock drives it in tests.
import { type Clock, realClock, sleepOn } from "../clock/clock.js";

export interface PollOptions {
  /** Time between the end of one check and the start of the next. */
  intervalMs: number;
  /** Give up (PollTimeoutError) once this long has passed since the first check. Default: never. */
  timeoutMs?: number;
  /** Aborting stops the poll: it rejects with the signal's reason. Checks receive it too. */
  signal?: AbortSignal;
  /** What the timeout error says was awaited. */
  what?: string;
  clock?: Clock;
}

/** The poll's timeout passed without a check returning a value (wait.ErrWaitTimeout). */
export class PollTimeoutError extends Error {
  constructor(timeoutMs: number, what: string | undefined) {
    super(`timed out after ${timeoutMs / 1000}s${what === undefined ? "" : ` waiting for ${what}`}`);
    this.name = "PollTimeoutError";
  }
}

/**
 * Calls `check` until it returns something other than undefined or false, and resolves with that. An error from
 * `check` ends the poll with that error (catch inside the check to mean "not yet"). The last check runs at the
 * deadline, not an interval past it.
 */
export async function pollUntil<T>(
  check: (signal: AbortSignal | undefined) => T | undefined | false | Promise<T | undefined | false>,
  options: PollOptions,
): Promise<T> {
  const { intervalMs, timeoutMs = Infinity, signal, what, clock = realClock } = options;
  const sleep = sleepOn(clock);
  const deadline = clock.now() + timeoutMs;
  for (;;) {
    signal?.throwIfAborted();
    const value = await check(signal);
    if (value !== undefined && value !== false) return value;
    signal?.throwIfAborted();
    const left = deadline - clock.now();
    if (left <= 0) throw new PollTimeoutError(timeoutMs, what);
    await sleep(Math.min(intervalMs, left), signal);
  }
}
