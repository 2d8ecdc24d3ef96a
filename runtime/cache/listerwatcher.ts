// The reflector's view of the API: LIST and WATCH one resource (client-go cache.ListerWatcher), plus error
// classification.
import type { KubernetesList, KubernetesObject, ListOptions, Status } from "../client/types.js";
import type { WatchEvent } from "../client/types.js";

/**
 * LIST and WATCH for one resource, already scoped to a namespace / label selector / field selector by whoever
 * builds it (the REST client implements it). Errors are expected to carry the HTTP code as a numeric `status`
 * (410 for Gone) and, when the body was a Status, `reason` / `body`.
 */
export interface ListerWatcher<T extends KubernetesObject> {
  /** The apiVersion and kind of the listed objects, when known: the reflector rejects watch events of other types. */
  readonly objectType?: ObjectType;
  list(options: ListOptions, signal?: AbortSignal): Promise<KubernetesList<T>>;
  /** Ends (or throws) when the server closes the stream or when signal aborts. */
  watch(options: ListOptions, signal: AbortSignal): AsyncIterable<WatchEvent<T>>;
}

/**
 * A shard of a resource (server-side sharded LIST/WATCH, KEP-5866): the shardSelector sent with LIST and WATCH, and
 * the same test applied by the client, so that a server without the feature (which ignores the parameter and sends
 * everything) still yields only the shard. Immutable: a reflector moves to another shard through reshard().
 */
export interface ShardFilter<T extends KubernetesObject> {
  /** The shardSelector parameter; undefined sends none (the whole collection, filtered by matches only). */
  readonly selector: string | undefined;
  matches(obj: T): boolean;
  /**
   * Told after each LIST whether the server applied the selector: false when it sent an object outside the shard.
   * An empty LIST tells nothing and is not reported.
   */
  reportServerFiltered?(filtered: boolean): void;
}

/** An object type by apiVersion and kind (a GroupVersionKind). */
export interface ObjectType {
  apiVersion: string;
  kind: string;
}

/** A watch ERROR event turned into an exception, shaped like the client's API errors (`status`, `reason`, `body`). */
export class WatchErrorEvent extends Error {
  override readonly name = "WatchErrorEvent";
  readonly status: number;
  readonly reason: string | undefined;
  readonly body: Status;
  constructor(body: Status) {
    super(body.message || `watch ERROR event ${body.code ?? ""} ${body.reason ?? ""}`.trim());
    this.status = body.code ?? 500;
    this.reason = body.reason;
    this.body = body;
  }
}

interface ErrorFacts {
  code: number | undefined;
  reason: string | undefined;
  message: string;
  causes: string[];
  errno: string | undefined;
}

// Reads the common shapes structurally: the client's ApiError/TransportError, a bare Status, node errors with a cause.
function facts(err: unknown): ErrorFacts {
  const e = (err ?? {}) as Record<string, unknown>;
  const body = (typeof e.body === "object" && e.body !== null ? e.body : e.kind === "Status" ? e : {}) as Status;
  const num = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);
  const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
  const code = num(e.status) ?? num(e.statusCode) ?? (e.kind === "Status" ? num(e.code) : undefined) ?? body.code;
  const cause = (e.cause ?? {}) as Record<string, unknown>;
  return {
    code,
    reason: str(e.reason) ?? body.reason,
    message: `${str(e.message) ?? ""} ${body.message ?? ""}`,
    causes: (body.details?.causes ?? []).map((c) => c.reason ?? ""),
    errno: (e.kind === "Status" ? undefined : str(e.code)) ?? str(cause.code),
  };
}

/** 410 Gone / reason Expired or Gone / "too old resource version": the RV or continue token is gone; relist. */
export function isResourceVersionTooOld(err: unknown): boolean {
  const f = facts(err);
  return f.code === 410 || f.reason === "Expired" || f.reason === "Gone" || /too old resource version/i.test(f.message);
}

/** "Too large resource version" (the server is behind the RV asked for): relist with RV "" (client-go isTooLargeResourceVersionError). */
export function isResourceVersionTooLarge(err: unknown): boolean {
  const f = facts(err);
  return f.causes.includes("ResourceVersionTooLarge") || /too large resource version/i.test(f.message);
}

/** 429 or connection refused: the server is there but busy/restarting; back off and retry the same watch (isWatchErrorRetriable). */
export function isRetriableWatchError(err: unknown): boolean {
  const f = facts(err);
  return f.code === 429 || f.reason === "TooManyRequests" || f.errno === "ECONNREFUSED";
}

/**
 * A watch stream that broke after it was established (connection reset, apiserver restart, proxy drop): client-go
 * treats this like a closed watch and watches again from the last resourceVersion, without relisting.
 * Connection refused (server down) is not an interruption, nor is an event the client could not decode (malformed,
 * or over its size limit): client-go ends that watch and relists after backoff, and watching again at once would
 * fetch the same event again.
 */
export function isStreamInterrupted(err: unknown): boolean {
  const e = (err ?? {}) as { name?: unknown; code?: unknown };
  return (
    e.name === "TransportError" &&
    e.code !== "ECONNREFUSED" &&
    e.code !== "MalformedResponse" &&
    e.code !== "ResponseTooLarge"
  );
}
