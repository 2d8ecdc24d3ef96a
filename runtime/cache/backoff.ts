// The reflector's jittered exponential backoff between failed list/watch attempts (apimachinery wait.Backoff).
import type { Clock } from "../clock/clock.js";

/** client-go reflector defaults: 800 ms doubling to 30 s, jitter 1.0, reset after 2 quiet minutes. */
export interface ReflectorBackoffOptions {
  initialMs?: number;
  maxMs?: number;
  factor?: number;
  /** The wait is d + random·jitter·d, applied after capping (apimachinery wait.Backoff.Step). */
  jitter?: number;
  /** If no step was taken for this long, start again from initialMs (wait.Backoff.DelayWithReset). */
  resetAfterMs?: number;
}

/** Stateful backoff: each next() is the delay for one more consecutive failure. */
export class Backoff {
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly factor: number;
  private readonly jitter: number;
  private readonly resetAfterMs: number;
  private current: number;
  private lastStepAt: number | undefined;

  constructor(
    options: ReflectorBackoffOptions,
    private readonly clock: Clock,
    private readonly random: () => number,
  ) {
    this.initialMs = options.initialMs ?? 800;
    this.maxMs = options.maxMs ?? 30_000;
    this.factor = options.factor ?? 2;
    this.jitter = options.jitter ?? 1;
    this.resetAfterMs = options.resetAfterMs ?? 120_000;
    this.current = this.initialMs;
  }

  next(): number {
    const now = this.clock.now();
    if (this.lastStepAt !== undefined && now - this.lastStepAt >= this.resetAfterMs) this.current = this.initialMs;
    this.lastStepAt = now;
    const base = this.current;
    this.current = Math.min(this.current * this.factor, this.maxMs);
    return base + this.random() * this.jitter * base;
  }
}
