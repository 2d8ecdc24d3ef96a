// One webhook request, as controller-runtime's webhook handlers answer it: the registration at the request's path
// (conversion webhooks sharing /convert are told apart by the objects' kind), a JSON POST only, a body limit, a
// deadline that aborts the hook's signal, a metric and a log line per request, and a Status for every failure.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Status } from "../client/types.js";
import type { Logger } from "../log/logger.js";
import type { WebhookMetrics } from "../metrics/webhook.js";
import { describePanic } from "../panic/panic.js";
import { conversionReviewGroupKind } from "./conversion.js";
import { BadRequest, type WebhookRegistration } from "./registration.js";

export interface ReviewHandlerOptions {
  /** Registrations by path (see routeTable). */
  routes: ReadonlyMap<string, readonly WebhookRegistration[]>;
  /** A request not answered by then gets 503 and its hook's signal aborts. */
  timeoutMs: number;
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
    const deadline = requestDeadline(res, o.timeoutMs);
    const request: RequestState = { log: o.log.child({ webhook: url }), started: performance.now() };
    let code = 500;
    try {
      code = await answer(req, res, candidates, deadline.signal, request, o);
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

/** Reads, checks and answers the review; returns the status code sent. Throws what sendError turns into a Status. */
async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  candidates: readonly WebhookRegistration[],
  signal: AbortSignal,
  request: RequestState,
  o: ReviewHandlerOptions,
): Promise<number> {
  const refused = refuseUnlessJsonPost(req, res);
  if (refused !== undefined) return refused;
  const body = await readBody(req, o.maxBytes, signal);
  if (body === "too large")
    return send(
      res,
      413,
      failure(413, "RequestEntityTooLarge", `request entity is too large; limit is ${o.maxBytes} bytes`),
    );
  const review = parseReview(body);
  const uid = (review as { request?: { uid?: unknown } } | null)?.request?.uid;
  if (typeof uid === "string") request.log = request.log.child({ uid });
  const registration = pick(candidates, review);
  const onPanic = (value: unknown) => {
    o.metrics.panicked(registration.type);
    // As client-go's panic handlers: at error level, with the stack when there is one.
    const stack = value instanceof Error ? { stack: value.stack } : {};
    request.log.error(`Observed a panic in webhook: ${describePanic(value)}`, stack);
  };
  const reply = await untilAborted(registration.handle(review, { signal, log: request.log, onPanic }), signal);
  const code = send(res, 200, reply);
  request.log.debug("webhook request answered", { durationMs: performance.now() - request.started, ...summary(reply) });
  return code;
}

/** Aborts with a reason when the deadline passes or the caller hangs up before the answer is written. */
function requestDeadline(res: ServerResponse, timeoutMs: number): { signal: AbortSignal; clear(): void } {
  const abort = new AbortController();
  const timer = setTimeout(
    () => abort.abort(new Error(`the webhook did not answer within ${timeoutMs} ms`)),
    timeoutMs,
  );
  res.on("close", () => {
    clearTimeout(timer);
    if (!res.writableFinished) abort.abort(new Error("the caller closed the connection"));
  });
  return { signal: abort.signal, clear: () => clearTimeout(timer) };
}

/** Answers 405 (not a POST) or 415 (not JSON) and returns the code sent, or undefined when the request may go on. */
function refuseUnlessJsonPost(req: IncomingMessage, res: ServerResponse): number | undefined {
  if (req.method !== "POST") {
    res.setHeader("Allow", "POST");
    return send(res, 405, failure(405, "MethodNotAllowed", `${req.method ?? ""} is not allowed: use POST`));
  }
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim();
  if (type !== "application/json")
    return send(
      res,
      415,
      failure(415, "UnsupportedMediaType", `content-type ${type || "(none)"}: expected application/json`),
    );
  return undefined;
}

function parseReview(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch (error) {
    throw new BadRequest(`the body is not JSON: ${(error as Error).message}`);
  }
}

/** The hook's answer, or a rejection with the signal's reason as soon as it aborts (a hook may ignore its signal). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      const fail = () => reject(signal.reason as Error);
      if (signal.aborted) fail();
      else signal.addEventListener("abort", fail, { once: true });
    }),
  ]);
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

function pick(candidates: readonly WebhookRegistration[], review: unknown): WebhookRegistration {
  if (candidates.length === 1) return candidates[0]!;
  const gk = conversionReviewGroupKind(review);
  const match = gk && candidates.find((c) => c.resource.group === gk.group && c.resource.kind === gk.kind);
  if (!match)
    throw new BadRequest(
      `no conversion webhook for ${gk ? `${gk.kind}.${gk.group}` : "this review"}; served: ${candidates.map((c) => `${c.resource.kind}.${c.resource.group}`).join(", ")}`,
    );
  return match;
}

async function readBody(req: IncomingMessage, limit: number, signal: AbortSignal): Promise<Buffer | "too large"> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return "too large";
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    if (signal.aborted) throw signal.reason as Error;
    size += chunk.length;
    if (size > limit) return "too large";
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function failure(code: number, reason: string, message: string): Status {
  return { kind: "Status", apiVersion: "v1", status: "Failure", code, reason, message };
}

/** Writes a JSON response; returns the status code (for the metric). */
function send(res: ServerResponse, code: number, body: unknown): number {
  if (res.headersSent || res.destroyed) return code;
  const text = JSON.stringify(body);
  res.writeHead(code, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
  return code;
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
