// Time source for the workqueue: the real clock, and a FakeClock that tests step by hand (like k8s.io/utils/clock/testing).

/** What the delaying queue and the token bucket need from time, in milliseconds. */
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
