// Test doubles for the cache tests: a scriptable in-memory ListerWatcher, a hand-stepped clock, and small helpers.
import { newLogger, type Logger, type KubernetesObject, type ResourceDescriptor } from "@crdgen/runtime";
import type { Clock } from "@crdgen/runtime/testing";
import type { KubernetesList, ListOptions, WatchEvent } from "@crdgen/runtime/client";
import type { ListerWatcher } from "@crdgen/runtime/cache";

/** The namespaced kind the cache and controller tests use. */
export const thingsResource: ResourceDescriptor = {
  group: "example.com",
  version: "v1",
  plural: "things",
  kind: "Thing",
  namespaced: true,
};

/** A logger that writes nothing, for tests whose subject logs. */
export const quiet: Logger = newLogger({ write: () => undefined });

export interface Obj extends KubernetesObject {
  spec?: { n?: number };
}

export function obj(
  name: string,
  rv: string,
  opts: { ns?: string; labels?: Record<string, string>; n?: number } = {},
): Obj {
  return {
    apiVersion: "example.com/v1",
    kind: "Thing",
    metadata: {
      name,
      resourceVersion: rv,
      ...(opts.ns !== undefined ? { namespace: opts.ns } : {}),
      ...(opts.labels ? { labels: opts.labels } : {}),
    },
    ...(opts.n !== undefined ? { spec: { n: opts.n } } : {}),
  };
}

export function list(items: Obj[], rv: string, cont?: string): KubernetesList<Obj> {
  return {
    apiVersion: "v1",
    kind: "ThingList",
    metadata: { resourceVersion: rv, ...(cont ? { continue: cont } : {}) },
    items,
  };
}

/** An error shaped like the REST client's (numeric status). */
export function httpError(status: number, message = `HTTP ${status}`): Error {
  return Object.assign(new Error(message), { status });
}

/** One WATCH call: the test pushes events, closes or fails it. */
export class FakeWatch {
  private queue: Array<{ event: WatchEvent<Obj> } | { end: true } | { error: unknown }> = [];
  private wake: (() => void) | undefined;
  constructor(
    readonly options: ListOptions,
    readonly signal: AbortSignal,
  ) {
    signal.addEventListener("abort", () => this.wake?.());
  }
  push(...events: WatchEvent<Obj>[]): void {
    for (const event of events) this.queue.push({ event });
    this.wake?.();
  }
  close(): void {
    this.queue.push({ end: true });
    this.wake?.();
  }
  fail(error: unknown): void {
    this.queue.push({ error });
    this.wake?.();
  }
  async *events(): AsyncGenerator<WatchEvent<Obj>> {
    for (;;) {
      while (this.queue.length === 0) {
        if (this.signal.aborted) return;
        await new Promise<void>((r) => (this.wake = r));
      }
      const item = this.queue.shift()!;
      if ("end" in item) return;
      if ("error" in item) throw item.error;
      yield item.event;
    }
  }
}

type ListStep = KubernetesList<Obj> | Error | ((options: ListOptions) => Promise<KubernetesList<Obj>>);

/** Scriptable ListerWatcher: queueList() answers for successive LIST calls; each WATCH becomes a FakeWatch. */
export class FakeListerWatcher implements ListerWatcher<Obj> {
  readonly listCalls: ListOptions[] = [];
  readonly watches: FakeWatch[] = [];
  private readonly script: ListStep[] = [];

  queueList(...steps: ListStep[]): this {
    this.script.push(...steps);
    return this;
  }

  async list(options: ListOptions, signal?: AbortSignal): Promise<KubernetesList<Obj>> {
    this.listCalls.push({ ...options });
    const step = this.script.shift();
    if (step === undefined) {
      // Nothing scripted: hang until aborted, like a slow server.
      return new Promise((_, reject) => signal?.addEventListener("abort", () => reject(new Error("aborted"))));
    }
    if (step instanceof Error) throw step;
    if (typeof step === "function") return step(options);
    return structuredClone(step);
  }

  watch(options: ListOptions, signal: AbortSignal): AsyncIterable<WatchEvent<Obj>> {
    const w = new FakeWatch({ ...options }, signal);
    this.watches.push(w);
    return w.events();
  }
}

/** A clock that moves only when advance() is called; due timers fire in time order. */
export class TestClock implements Clock {
  private time = 0;
  private seq = 0;
  private timers = new Map<number, { at: number; fn: () => void }>();
  now(): number {
    return this.time;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.timers.set(id, { at: this.time + ms, fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const e of this.timers) if (e[1].at <= end && (!next || e[1].at < next[1].at)) next = e;
      if (!next) break;
      this.timers.delete(next[0]);
      this.time = Math.max(this.time, next[1].at);
      next[1].fn();
    }
    this.time = end;
  }
}

/** Lets pending promise callbacks run. */
export async function flush(times = 20): Promise<void> {
  for (let i = 0; i < times; i++) await new Promise((r) => setImmediate(r));
}

/** Waits (on the event loop, not a timer) until cond() holds. */
export async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (cond()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`timed out waiting for: ${what}`);
}

/** Logger that records error messages instead of printing (its children record into the same list). */
export function recordingLogger(): Logger & { errors: string[] } {
  const errors: string[] = [];
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: () => undefined,
    error: (m) => void errors.push(m),
    child: () => logger,
  };
  return Object.assign(logger, { errors });
}

/** A sleep that records the delay and returns at once. */
export function recordingSleep(): ((ms: number) => Promise<void>) & { delays: number[] } {
  const delays: number[] = [];
  const fn = async (ms: number): Promise<void> => {
    delays.push(ms);
    await new Promise((r) => setImmediate(r));
  };
  return Object.assign(fn, { delays });
}
