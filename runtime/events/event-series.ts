// client-go's events.k8s.io/v1 broadcaster (tools/events/event_broadcaster.go): an event isomorphic to one recorded in
// the last 6 minutes (same type, reason, action, reporter, regarding and related objects; the note may differ) is not
// a new Event but the next of its EventSeries. The second occurrence writes series.count 2; later ones only count in
// memory, written when the series ends (no occurrence for 6 minutes) and every 30 minutes while it goes on.
import type { KubeClient } from "../client/kube-client.js";
import { isNotFound } from "../client/api-error.js";
import type { Clock } from "../clock/clock.js";
import type { Logger } from "../log/logger.js";
import { microTime } from "../meta/micro-time.js";

/** client-go's finishTime: a series (or single event) not seen again for this long is over. */
export const SERIES_FINISH_MS = 6 * 60_000;
/** client-go's refreshTime: how often an ongoing series writes its count (events expire after an hour). */
export const SERIES_REFRESH_MS = 30 * 60_000;

export type ObjectReference = Record<string, string | undefined>;

/** An events.k8s.io/v1 Event as the recorder writes it. */
export interface SeriesEvent {
  apiVersion: "events.k8s.io/v1";
  kind: "Event";
  metadata: { name: string; namespace: string };
  eventTime: string;
  series?: { count: number; lastObservedTime: string };
  regarding: ObjectReference;
  related?: ObjectReference;
  type: string;
  reason: string;
  action: string;
  note: string;
  reportingController: string;
  reportingInstance: string;
}

interface Entry {
  event: SeriesEvent;
  /** When it was last seen (eventTime's ms, then series.lastObservedTime's). */
  lastSeen: number;
  /** The writes of this entry, one after the other: a series update never overtakes the create it patches. */
  writes: Promise<void>;
}

export class EventSeriesCache {
  private readonly entries = new Map<string, Entry>();
  private finishTimer: unknown;
  private refreshTimer: unknown;

  constructor(
    private readonly kube: KubeClient,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /**
   * Records one occurrence; resolves once the request it caused (if any) is done. mayCreate is asked only when the
   * event would become a new Event object (the per-object spam filter); false drops it.
   */
  record(event: SeriesEvent, mayCreate: () => boolean): Promise<void> {
    const key = isomorphicKey(event);
    const now = this.clock.now();
    const entry = this.entries.get(key);
    if (entry?.event.series) {
      entry.event.series = { count: entry.event.series.count + 1, lastObservedTime: microTime(new Date(now)) };
      entry.lastSeen = now;
      return Promise.resolve();
    }
    if (entry) {
      entry.event.series = { count: 2, lastObservedTime: microTime(new Date(now)) };
      entry.lastSeen = now;
      return this.write(entry);
    }
    if (!mayCreate()) {
      this.log.debug("event dropped: too many events about this object", { reason: event.reason });
      return Promise.resolve();
    }
    const created: Entry = { event, lastSeen: now, writes: Promise.resolve() };
    this.entries.set(key, created);
    this.armTimers();
    return this.write(created);
  }

  /** Queues a write of the entry as it is now: its series update, or its creation. */
  private write(entry: Entry): Promise<void> {
    const snapshot = structuredClone(entry.event);
    entry.writes = entry.writes.then(() => this.send(snapshot));
    return entry.writes;
  }

  /** client-go's recordEvent: a series is patched (created if gone), a single event created; failures are logged. */
  private async send(event: SeriesEvent): Promise<void> {
    const { name, namespace } = event.metadata;
    const collection = `/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/events`;
    try {
      if (event.series) {
        try {
          await this.kube.request({
            method: "PATCH",
            path: `${collection}/${encodeURIComponent(name)}`,
            body: { series: event.series },
            contentType: "application/merge-patch+json",
          });
          return;
        } catch (error) {
          if (!isNotFound(error)) throw error;
        }
      }
      await this.kube.request({ method: "POST", path: collection, body: event });
    } catch (error) {
      this.log.warn("could not record event", { reason: event.reason, error });
    }
  }

  /** Both periodic passes run while anything is cached; unref'd, they never keep a process alive. */
  private armTimers(): void {
    this.finishTimer ??= this.every(SERIES_FINISH_MS, () => {
      this.finishTimer = undefined;
      this.finishSeries();
    });
    this.refreshTimer ??= this.every(SERIES_REFRESH_MS, () => {
      this.refreshTimer = undefined;
      this.refreshSeries();
    });
  }

  private every(ms: number, fn: () => void): unknown {
    const handle = this.clock.setTimeout(() => {
      fn();
      if (this.entries.size > 0) this.armTimers();
    }, ms);
    (handle as { unref?: () => void }).unref?.();
    return handle;
  }

  /** client-go's finishSeries: an ended series writes its final count; ended entries are forgotten. */
  private finishSeries(): void {
    const cutoff = this.clock.now() - SERIES_FINISH_MS;
    for (const [key, entry] of this.entries) {
      if (entry.lastSeen >= cutoff) continue;
      this.entries.delete(key);
      if (entry.event.series) void this.write(entry);
    }
  }

  /** client-go's refreshExistingEventSeries: ongoing series write their count. */
  private refreshSeries(): void {
    for (const entry of this.entries.values()) if (entry.event.series) void this.write(entry);
  }
}

/**
 * What makes two events one series (client-go's getKey): type, action, reason, reporter, regarding and related. The
 * objects count without their resourceVersion, as in client-go's core/v1 keys: an event about an object that changed
 * since (each reconcile's write changes it) is still the same event about the same object.
 */
function isomorphicKey(e: SeriesEvent): string {
  const object = (ref: ObjectReference | undefined) =>
    ref && [ref["apiVersion"], ref["kind"], ref["namespace"], ref["name"], ref["uid"], ref["fieldPath"]];
  return JSON.stringify([
    e.type,
    e.action,
    e.reason,
    e.reportingController,
    e.reportingInstance,
    object(e.regarding),
    object(e.related),
  ]);
}
