// The runtime's one jittered exponential backoff (apimachinery's wait.Backoff): the reflector between failed
// list/watch attempts, retryOnError between attempts of a read-modify-write.
import { type Clock, realClock } from "../clock/clock.js";

export interface BackoffSettings {
  /** The first wait. */
  initialMs: number;
  /** Each later wait is the previous one times this (1: every wait the same). */
  factor: number;
  /** A wait d becomes d + random·jitter·d, applied after capping (wait.Jitter); 0: no randomness. */
  jitter: number;
  /** No wait grows beyond this, before jitter (wait.Backoff.Cap). Default: no cap. */
  maxMs?: number;
  /** After this long without a step, start again from initialMs (wait.Backoff.DelayWithReset). Default: never. */
  resetAfterMs?: number;
}

/** Stateful: each next() is the wait after one more consecutive failure. */
export class Backoff {
  private current: number;
  private lastStepAt: number | undefined;

  constructor(
    private readonly settings: Readonly<BackoffSettings>,
    private readonly clock: Clock = realClock,
    private readonly random: () => number = Math.random,
  ) {
    this.current = settings.initialMs;
  }

  next(): number {
    const { initialMs, factor, jitter, maxMs = Infinity, resetAfterMs = Infinity } = this.settings;
    const now = this.clock.now();
    if (this.lastStepAt !== undefined && now - this.lastStepAt >= resetAfterMs) this.current = initialMs;
    this.lastStepAt = now;
    const base = Math.min(this.current, maxMs);
    this.current = Math.min(this.current * factor, maxMs);
    return base + this.random() * jitter * base;
  }
}
