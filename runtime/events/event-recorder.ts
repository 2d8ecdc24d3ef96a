// Records events.k8s.io/v1 Events about an object, as client-go's tools/events recorder does; best effort, never
// fails a reconcile. The API server also serves them as core/v1 Events (regarding -> involvedObject, note -> message).
// Repeats become an EventSeries (event-series.ts) and new Events are rate-limited per object (spam-filter.ts), so an
// operator that reports the same thing on every reconcile does not flood the API server.
import os from "node:os";
import type { KubeClient } from "../client/kube-client.js";
import { type Clock, realClock } from "../clock/clock.js";
import type { KubernetesObject } from "../client/types.js";
import type { Logger } from "../log/logger.js";
import { microTime } from "../meta/micro-time.js";
import { EventSeriesCache, type ObjectReference, type SeriesEvent } from "./event-series.js";
import { EventSpamFilter } from "./spam-filter.js";

export interface EventOptions {
  /** What was done (or failed) about the object, e.g. "Scaling"; at most 128 characters. Default: the reason. */
  action?: string;
  /** A second object the event is about (events.k8s.io/v1 `related`). */
  related?: KubernetesObject;
}

export interface EventRecorder {
  /**
   * Records one occurrence: a new Event, the next of an isomorphic Event's series, or nothing when the object had too
   * many new Events lately. Resolves once the request it causes (if any) is done; never rejects.
   */
  event(
    obj: KubernetesObject,
    type: "Normal" | "Warning",
    reason: string,
    message: string,
    options?: EventOptions,
  ): Promise<void>;
}

export interface EventRecorderOptions {
  /** reportingInstance; default `<component>-<hostname>` (at most 128 characters). */
  reportingInstance?: string;
  /** The time source of eventTime, the names' timestamps, the series' ends and the rate limit. Default: real clock. */
  clock?: Clock;
}

// Limits of the API server's events validation (ValidateEventCreate).
const REASON_LIMIT = 128;
const ACTION_LIMIT = 128;
const INSTANCE_LIMIT = 128;
const NOTE_LIMIT = 1024;

/**
 * `component` becomes reportingController, which must be a qualified name (`[prefix/]name`, name at most 63
 * characters of [A-Za-z0-9._-]); a controller name such as `mysqlclusters.example.com` is one.
 */
export function newEventRecorder(
  kube: KubeClient,
  component: string,
  log: Logger,
  options: EventRecorderOptions = {},
): EventRecorder {
  const reportingController = component;
  const reportingInstance = truncate(options.reportingInstance ?? `${component}-${os.hostname()}`, INSTANCE_LIMIT);
  const clock = options.clock ?? realClock;
  const series = new EventSeriesCache(kube, clock, log);
  const spam = new EventSpamFilter(clock);
  return {
    event(obj, type, reason, message, eventOptions = {}) {
      const meta = obj.metadata ?? {};
      // Events of cluster-scoped objects live in "default", as kubectl and client-go put them.
      const namespace = meta.namespace ?? "default";
      const now = clock.now();
      const event: SeriesEvent = {
        apiVersion: "events.k8s.io/v1",
        kind: "Event",
        // Named as client-go names them, <name>.<unix nanos in hex>: events.k8s.io validates metadata strictly,
        // so a generateName ending in "." (the core/v1 habit) is rejected.
        metadata: { name: `${meta.name ?? "object"}.${unixNanos(now).toString(16)}`, namespace },
        eventTime: microTime(new Date(now)),
        regarding: reference(obj),
        related: eventOptions.related ? reference(eventOptions.related) : undefined, // JSON drops it when absent
        type,
        reason: truncate(reason, REASON_LIMIT),
        action: truncate(eventOptions.action ?? reason, ACTION_LIMIT),
        note: truncateBytes(message, NOTE_LIMIT),
        reportingController,
        reportingInstance,
      };
      return series.record(event, () => spam.allow(spamKey(event)));
    },
  };
}

/** client-go's getSpamKey: the reporting source, the object (not its resourceVersion) and the event type. */
function spamKey(e: SeriesEvent): string {
  const r = e.regarding;
  return JSON.stringify([
    e.reportingController,
    e.reportingInstance,
    r["apiVersion"],
    r["kind"],
    r["namespace"],
    r["name"],
    r["uid"],
    e.type,
  ]);
}

// A time in ms as ns, its sub-millisecond digits from the monotonic clock so names in one millisecond differ.
function unixNanos(ms: number): bigint {
  return BigInt(Math.floor(ms)) * 1_000_000n + (process.hrtime.bigint() % 1_000_000n);
}

function reference(obj: KubernetesObject): ObjectReference {
  const meta = obj.metadata ?? {};
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    name: meta.name,
    namespace: meta.namespace,
    uid: meta.uid,
    resourceVersion: meta.resourceVersion,
  };
}

function truncate(s: string, max: number): string {
  return s.length <= max ? s : s.slice(0, max);
}

// The note limit is in bytes; drop whole characters until the UTF-8 form fits.
function truncateBytes(s: string, max: number): string {
  let out = truncate(s, max);
  while (Buffer.byteLength(out) > max) out = out.slice(0, -1);
  return out;
}
