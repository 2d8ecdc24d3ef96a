// The one time source of the runtime (k8s.io/utils/clock): the real clock, a FakeClock that tests step by hand,
// and an abortable sleep on either, so one fake clock drives the workqueue, the cache and leader election in tests.

/** What the queues, rate limiters, reflector and leader election need from time, in milliseconds. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Wall-clock time and Node timers. */
export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Waits ms, or less if signal aborts (then it resolves; callers check signal.aborted). */
export type SleepFunc = (ms: number, signal?: AbortSignal) => Promise<void>;

/** A SleepFunc on top of a clock. */
export function sleepOn(clock: Clock): SleepFunc {
  return (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) {
        resolve();
        return;
      }
      const done = (): void => {
        clock.clearTimeout(handle);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const handle = clock.setTimeout(done, Math.max(0, ms));
      signal?.addEventListener("abort", done, { once: true });
    });
}

interface FakeTimer {
  readonly at: number;
  readonly seq: number;
  readonly fn: () => void;
}

/** A clock that only moves when told to; due timers fire synchronously, earliest first. */
export class FakeClock implements Clock {
  private time: number;
  private seq = 0;
  private readonly timers = new Set<FakeTimer>();

  constructor(startMs = 0) {
    this.time = startMs;
  }

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const timer: FakeTimer = { at: this.time + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.add(timer);
    return timer;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as FakeTimer);
  }

  /** Advances time by ms, firing every timer that falls due on the way (including ones armed by fired timers). */
  step(ms: number): void {
    this.setTime(this.time + ms);
  }

  /** Sets the time; moving forward fires due timers in time order, each seeing now() equal to its due time. */
  setTime(ms: number): void {
    for (;;) {
      const next = this.earliest();
      if (next === undefined || next.at > ms) break;
      this.timers.delete(next);
      // Never move time backwards for a timer that was already overdue.
      this.time = Math.max(this.time, next.at);
      next.fn();
    }
    this.time = ms;
  }

  /** True while any timer is armed. */
  hasWaiters(): boolean {
    return this.timers.size > 0;
  }

  private earliest(): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const t of this.timers) {
      if (best === undefined || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    }
    return best;
  }
}
