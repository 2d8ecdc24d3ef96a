// One webhook request, as controller-runtime's webhook handlers answer it: the registration at the request's path
// (conversion webhooks sharing /convert are told apart by the objects' kind), a body limit, a deadline that aborts the
// hook's signal, a metric and a log line per request. Admission answers every request with a review
// (admission-http.ts); conversion answers HTTP 400 for a body that is not a review and a review for the rest.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Status } from "../client/types.js";
import type { Clock } from "../clock/clock.js";
import type { Logger } from "../log/logger.js";
import type { WebhookMetrics } from "../metrics/webhook.js";
import { describePanic } from "../panic/panic.js";
import { answerAdmission } from "./admission-http.js";
import { conversionReviewGroupKind, failedConversion } from "./conversion.js";
import { failure, readBody, send, untilAborted } from "./http-io.js";
import { BadRequest, type WebhookRegistration, type WebhookRequestContext } from "./registration.js";

export interface ReviewHandlerOptions {
  /** Registrations by path (see routeTable). */
  routes: ReadonlyMap<string, readonly WebhookRegistration[]>;
  /** A request not answered by then gets 503 and its hook's signal aborts. */
  timeoutMs: number;
  /** Times that deadline. */
  clock: Clock;
  /** A larger body gets 413. */
  maxBytes: number;
  metrics: WebhookMetrics;
  log: Logger;
}

export type ReviewHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export function reviewHandler(o: ReviewHandlerOptions): ReviewHandler {
  return async (req, res) => {
    const url = (req.url ?? "/").split("?")[0]!;
    const candidates = o.routes.get(url);
    if (!candidates) {
      send(res, 404, failure(404, "NotFound", `no webhook is served at ${url}`));
      return;
    }
    const done = o.metrics.started(url);
    const deadline = requestDeadline(res, o.timeoutMs, o.clock);
    const request: RequestState = { log: o.log.child({ webhook: url }), started: performance.now() };
    const first = candidates[0]!;
    let code = 500;
    try {
      code =
        first.type === "conversion"
          ? await answerConversion(req, res, candidates, deadline.signal, request, o)
          : await answerAdmission(req, first, deadline.signal, {
              maxBytes: o.maxBytes,
              context: (uid) => requestContext(first, uid, deadline.signal, request, o),
              send: (reply) => answered(res, reply, request),
              failed: (error) => request.log.error("webhook request failed", { error: error as Error }),
            });
    } catch (error) {
      code = sendError(res, error, deadline.signal, request.log, o.timeoutMs);
    } finally {
      deadline.clear();
      done(code);
    }
  };
}

/** What one request's steps share: its logger (which gains the review's uid once read) and its start time. */
interface RequestState {
  log: Logger;
  started: number;
}

/** The hook's context: the deadline's signal, the logger with the uid, and the panic counter and log line. */
function requestContext(
  registration: WebhookRegistration,
  uid: string,
  signal: AbortSignal,
  request: RequestState,
  o: ReviewHandlerOptions,
): WebhookRequestContext {
  if (uid) request.log = request.log.child({ uid });
  const log = request.log;
  const onPanic = (value: unknown) => {
    o.metrics.panicked(registration.type);
    // As client-go's panic handlers: at error level, with the stack when there is one.
    const stack = value instanceof Error ? { stack: value.stack } : {};
    log.error(`Observed a panic in webhook: ${describePanic(value)}`, stack);
  };
  return { signal, log, onPanic };
}

/**
 * A ConversionReview, as controller-runtime's conversion webhook reads it: any method and content type; a body that is
 * not JSON, or has no request, is HTTP 400; everything else is answered in the review (HTTP 200). Returns the status
 * code sent; throws what sendError turns into a Status.
 */
async function answerConversion(
  req: IncomingMessage,
  res: ServerResponse,
  candidates: readonly WebhookRegistration[],
  signal: AbortSignal,
  request: RequestState,
  o: ReviewHandlerOptions,
): Promise<number> {
  const body = await readBody(req, o.maxBytes, signal);
  if (body === "too large")
    return send(
      res,
      413,
      failure(413, "RequestEntityTooLarge", `request entity is too large; limit is ${o.maxBytes} bytes`),
    );
  const review = parseReview(body);
  const uid = (review as { request?: { uid?: unknown } } | null)?.request?.uid;
  const registration = pick(candidates, review);
  // As controller-runtime's "is not convertible": a Failure in the review.
  if (!registration) return answered(res, failedConversion(review, notConverted(candidates, review)), request);
  const context = requestContext(registration, typeof uid === "string" ? uid : "", signal, request, o);
  return answered(res, await untilAborted(registration.handle(review, context), signal), request);
}

/** Sends the review with HTTP 200 and logs a line about it. */
function answered(res: ServerResponse, reply: unknown, request: RequestState): number {
  const code = send(res, 200, reply);
  request.log.debug("webhook request answered", { durationMs: performance.now() - request.started, ...summary(reply) });
  return code;
}

/** Aborts with a reason when the deadline passes or the caller hangs up before the answer is written. */
function requestDeadline(res: ServerResponse, timeoutMs: number, clock: Clock): { signal: AbortSignal; clear(): void } {
  const abort = new AbortController();
  const timer = clock.setTimeout(
    () => abort.abort(new Error(`the webhook did not answer within ${timeoutMs} ms`)),
    timeoutMs,
  );
  res.on("close", () => {
    clock.clearTimeout(timer);
    if (!res.writableFinished) abort.abort(new Error("the caller closed the connection"));
  });
  return { signal: abort.signal, clear: () => clock.clearTimeout(timer) };
}

function parseReview(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch (error) {
    throw new BadRequest(`the body is not JSON: ${(error as Error).message}`);
  }
}

/** 400 for a bad review, 503 when the deadline aborted it, 500 for anything else; returns the code sent. */
function sendError(res: ServerResponse, error: unknown, signal: AbortSignal, log: Logger, timeoutMs: number): number {
  if (error instanceof BadRequest) return send(res, 400, failure(400, "BadRequest", error.message));
  if (signal.aborted && error === signal.reason) {
    const code = send(res, 503, failure(503, "ServiceUnavailable", (error as Error).message));
    log.error("webhook request not answered in time", { timeoutMs });
    return code;
  }
  const code = send(res, 500, failure(500, "InternalError", error instanceof Error ? error.message : String(error)));
  log.error("webhook request failed", { error: error as Error });
  return code;
}

/** Registrations by path; only conversion webhooks may share one (they are told apart by the objects' kind). */
export function routeTable(webhooks: readonly WebhookRegistration[]): Map<string, WebhookRegistration[]> {
  if (webhooks.length === 0) throw new Error("startWebhookServer: no webhooks to serve");
  const routes = new Map<string, WebhookRegistration[]>();
  for (const w of webhooks) {
    const list = routes.get(w.path) ?? [];
    const clash = list.find((o) => w.type !== "conversion" || o.type !== "conversion" || sameKind(o, w));
    if (clash)
      throw new Error(`startWebhookServer: two webhooks at ${w.path} (${clash.resource.kind} and ${w.resource.kind})`);
    list.push(w);
    routes.set(w.path, list);
  }
  return routes;
}

const sameKind = (a: WebhookRegistration, b: WebhookRegistration) =>
  a.resource.group === b.resource.group && a.resource.kind === b.resource.kind;

/** The registration for the review's kind; undefined when none of those sharing the path converts it. */
function pick(candidates: readonly WebhookRegistration[], review: unknown): WebhookRegistration | undefined {
  if (candidates.length === 1) return candidates[0]!;
  const gk = conversionReviewGroupKind(review);
  return gk ? candidates.find((c) => c.resource.group === gk.group && c.resource.kind === gk.kind) : undefined;
}

function notConverted(candidates: readonly WebhookRegistration[], review: unknown): string {
  const gk = conversionReviewGroupKind(review);
  const served = candidates.map((c) => `${c.resource.kind}.${c.resource.group}`).join(", ");
  return `no conversion webhook for ${gk ? `${gk.kind}.${gk.group}` : "this review"}; served: ${served}`;
}

/** What a log line says about an answer: allowed or refused (admission), success or failure (conversion). */
function summary(answer: unknown): Record<string, unknown> {
  const response = (answer as { response?: Record<string, unknown> } | null)?.response;
  if (!response) return {};
  if ("allowed" in response) {
    const status = response["status"] as Status | undefined;
    return {
      allowed: response["allowed"],
      ...(status?.code ? { code: status.code } : {}),
      patched: "patch" in response,
    };
  }
  const result = response["result"] as Status | undefined;
  return { result: result?.status, ...(result?.message ? { message: result.message } : {}) };
}
