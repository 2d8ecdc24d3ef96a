// Errors the client throws: ApiError for an HTTP response from the API server, TransportError when none arrived.
import type { Status } from "./types.js";

/** meta/v1 StatusReason values the API server sends; any other string is passed through. */
export type StatusReason =
  | "BadRequest"
  | "Unauthorized"
  | "Forbidden"
  | "NotFound"
  | "AlreadyExists"
  | "Conflict"
  | "Gone"
  | "Expired"
  | "Invalid"
  | "ServerTimeout"
  | "Timeout"
  | "TooManyRequests"
  | "MethodNotAllowed"
  | "NotAcceptable"
  | "RequestEntityTooLarge"
  | "UnsupportedMediaType"
  | "InternalError"
  | "ServiceUnavailable"
  | "Unknown"
  // Keeps autocompletion for the known reasons while accepting any string.
  | (string & {});

// Same table as client-go's apierrors.NewGenericServerResponse: a reason when the body is not a Status.
const reasonForCode: Record<number, StatusReason> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  406: "NotAcceptable",
  409: "Conflict",
  410: "Gone",
  413: "RequestEntityTooLarge",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

export interface ApiErrorInit {
  status: number;
  method: string;
  path: string;
  body: Status | string;
  /** From the Retry-After header; Status.details.retryAfterSeconds wins when both exist. */
  retryAfterHeader?: string | undefined;
}

/** The API server answered with a non-2xx status. `message` is the server's own message. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  /** HTTP status code. */
  readonly status: number;
  /** Status.reason, or one derived from the HTTP code when the body is not a Status. */
  readonly reason: StatusReason;
  /** The decoded meta/v1 Status, or the raw text when the body was not one. */
  readonly body: Status | string;
  readonly method: string;
  readonly path: string;
  readonly retryAfterSeconds?: number;

  constructor(init: ApiErrorInit) {
    const status = typeof init.body === "object" ? init.body : undefined;
    const text = typeof init.body === "string" ? init.body.trim() : "";
    super(status?.message || (text ? truncate(text, 500) : `HTTP ${init.status}`));
    this.status = init.status;
    this.reason = status?.reason || reasonForCode[init.status] || "Unknown";
    this.body = init.body;
    this.method = init.method;
    this.path = init.path;
    const retry = status?.details?.retryAfterSeconds ?? parseRetryAfter(init.retryAfterHeader);
    if (retry !== undefined) this.retryAfterSeconds = retry;
  }

  /** Turns a Status (e.g. the object of a watch ERROR event) into an ApiError. */
  static fromStatus(status: Status, method: string, path: string): ApiError {
    return new ApiError({ status: status.code ?? 500, method, path, body: status });
  }

  /** The server message with the request it answered, e.g. `ApiError: GET /api/v1/... -> 404 NotFound: ...`. */
  override toString(): string {
    return `${this.name}: ${this.method} ${this.path} -> ${this.status} ${this.reason}: ${this.message}`;
  }
}

/** No usable HTTP response: connection refused/reset, TLS failure, idle watch, an undecodable or oversized body. */
export class TransportError extends Error {
  override readonly name = "TransportError";
  readonly method: string;
  readonly path: string;
  /**
   * The cause's errno code (ECONNREFUSED, ECONNRESET, ...), or IdleTimeout, MalformedResponse (not JSON, or a metadata
   * string that is not a string), ResponseTooLarge (over maxResponseBytes or maxWatchEventBytes).
   */
  readonly code: string | undefined;

  constructor(method: string, path: string, message: string, opts: { cause?: unknown; code?: string } = {}) {
    super(`${method} ${path}: ${message}`, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.method = method;
    this.path = path;
    this.code = opts.code ?? errnoCode(opts.cause);
  }
}

// Helpers accept unknown (what a catch clause gives) and also a bare Status, as found in watch ERROR events.
function statusAndReason(e: unknown): { code?: number; reason?: string } | undefined {
  if (e instanceof ApiError) return { code: e.status, reason: e.reason };
  if (e !== null && typeof e === "object" && (e as Status).kind === "Status") {
    const s = e as Status;
    return { code: s.code, reason: s.reason };
  }
  return undefined;
}

// As client-go: a known reason decides; the HTTP code only counts when the server gave no reason.
function matches(e: unknown, code: number, reasons: string[]): boolean {
  const s = statusAndReason(e);
  if (!s) return false;
  if (s.reason && s.reason !== "Unknown") return reasons.includes(s.reason);
  return s.code === code;
}

export const isNotFound = (e: unknown): boolean => matches(e, 404, ["NotFound"]);
/** 409 Conflict (stale resourceVersion on update). AlreadyExists is also a 409 but is not a conflict. */
export const isConflict = (e: unknown): boolean => matches(e, 409, ["Conflict"]);
export const isAlreadyExists = (e: unknown): boolean => statusAndReason(e)?.reason === "AlreadyExists";
/** 410 Gone or reason Expired/Gone: the resourceVersion or continue token is too old; relist. */
export const isGone = (e: unknown): boolean => matches(e, 410, ["Gone", "Expired"]);
export const isInvalid = (e: unknown): boolean => matches(e, 422, ["Invalid"]);
export const isForbidden = (e: unknown): boolean => matches(e, 403, ["Forbidden"]);

/**
 * controller-runtime's client.IgnoreNotFound as a rejection handler: a NotFound becomes undefined, anything else is
 * rethrown. Deleting what is already gone, or reading what may not exist yet, then needs no try/catch:
 * `await client.delete(name).catch(ignoreNotFound)`, `const obj = await client.get(name).catch(ignoreNotFound)`.
 */
export function ignoreNotFound(err: unknown): undefined {
  if (isNotFound(err)) return undefined;
  throw err;
}

function parseRetryAfter(h: string | undefined): number | undefined {
  if (h === undefined || !/^\s*\d+\s*$/.test(h)) return undefined;
  return Number(h);
}

function errnoCode(cause: unknown): string | undefined {
  const code = (cause as { code?: unknown } | null | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}
