// Reading a webhook request's body and writing its JSON answer: the steps admission and conversion share.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Status } from "../client/types.js";

/**
 * True when the request carries no body at all: neither Content-Length (or Content-Length: 0) nor Transfer-Encoding.
 * Go's server gives such a request http.NoBody, which controller-runtime answers "request body is empty".
 */
export function hasNoBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] === undefined && (length === undefined || Number(length) === 0);
}

/** The body, or "too large" as soon as it passes `limit` bytes (what is left is not read); rejects when aborted. */
export function readBody(req: IncomingMessage, limit: number, signal: AbortSignal): Promise<Buffer | "too large"> {
  return untilAborted(read(req, limit), signal);
}

async function read(req: IncomingMessage, limit: number): Promise<Buffer | "too large"> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return "too large";
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return "too large";
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The work's result, or a rejection with the signal's reason as soon as it aborts (a hook may ignore its signal). */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      const fail = () => reject(signal.reason as Error);
      if (signal.aborted) fail();
      else signal.addEventListener("abort", fail, { once: true });
    }),
  ]);
}

export function failure(code: number, reason: string, message: string): Status {
  return { kind: "Status", apiVersion: "v1", status: "Failure", code, reason, message };
}

/**
 * Writes a JSON response; returns the status code (for the metric). A request whose body was not read to its end
 * (too large, or the deadline passed while it trickled in) gets `Connection: close`, so the rest is never read.
 */
export function send(res: ServerResponse, code: number, body: unknown): number {
  if (res.headersSent || res.destroyed) return code;
  const text = JSON.stringify(body);
  const close = res.req.complete ? {} : { connection: "close" };
  res.writeHead(code, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...close });
  res.end(text);
  return code;
}
