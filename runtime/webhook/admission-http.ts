// An admission request as controller-runtime's admission.Webhook serves it (pkg/webhook/admission/http.go, webhook.go):
// every answer is an AdmissionReview at HTTP 200, a malformed request's too (not allowed, the code in its status), so
// with failurePolicy: Ignore a request the webhook could not read is refused, not let in. The checks come in Go's
// order: a missing body, the body's size, the content type, then decoding. AdmissionReview v1 and v1beta1 have one
// shape: both are served, a review without apiVersion and kind counts as v1, and the answer has the request's version.
import type { IncomingMessage } from "node:http";
import {
  decodeAdmissionReview,
  type AdmissionResponse,
  type AdmissionReview,
  type DecodedAdmissionReview,
} from "./admission.js";
import { hasNoBody, readBody, untilAborted } from "./http-io.js";
import { BadRequest, type WebhookRegistration, type WebhookRequestContext } from "./registration.js";

/** controller-runtime's admission.Errored: not allowed, the code and message in the status. */
function errored(code: number, message: string): Omit<AdmissionResponse, "uid"> {
  return { allowed: false, status: { code, message } };
}

export interface AdmissionAnswerOptions {
  maxBytes: number;
  /** The hook's context, once the request's uid is known ("" before). */
  context(uid: string): WebhookRequestContext;
  /** Sends the answer with HTTP 200 (and logs it); returns the status code. */
  send(review: unknown): number;
  /** Told of an error that is the server's fault (answered with 500 in the review). */
  failed(error: unknown): void;
}

/**
 * Reads, decodes and answers one admission request; returns the HTTP status sent (200 unless the deadline passed:
 * then the deadline's reason is thrown, for the server's 503).
 */
export async function answerAdmission(
  req: IncomingMessage,
  registration: WebhookRegistration,
  signal: AbortSignal,
  o: AdmissionAnswerOptions,
): Promise<number> {
  let decoded: DecodedAdmissionReview | undefined;
  try {
    const read = await readAdmission(req, o.maxBytes, signal);
    if (!("request" in read)) return o.send({ response: { uid: "", ...read } });
    decoded = read;
    const context = o.context(decoded.request.uid);
    const answer = await untilAborted(registration.handle(withDefaults(decoded), context), signal);
    return o.send(typed(decoded, (answer as Partial<AdmissionReview> | null)?.response ?? { allowed: false }));
  } catch (error) {
    if (signal.aborted && error === signal.reason) throw error;
    // A BadRequest is the request's fault; anything else (a hook cannot throw: admissionWebhooksFor turns its errors
    // into refusals) is ours, controller-runtime's recovered panic: 500.
    const code = error instanceof BadRequest ? 400 : 500;
    if (code === 500) o.failed(error);
    const response = errored(code, error instanceof Error ? error.message : String(error));
    return o.send(decoded ? typed(decoded, response) : { response: { uid: "", ...response } });
  }
}

/** The decoded review, or the refusal of a request that has none (Go's writeResponse: no apiVersion, no kind). */
async function readAdmission(
  req: IncomingMessage,
  maxBytes: number,
  signal: AbortSignal,
): Promise<DecodedAdmissionReview | Omit<AdmissionResponse, "uid">> {
  if (hasNoBody(req)) return errored(400, "request body is empty");
  const body = await readBody(req, maxBytes, signal);
  if (body === "too large") return errored(413, `request entity is too large; limit is ${maxBytes} bytes`);
  const contentType = req.headers["content-type"] ?? "";
  if (contentType !== "application/json") return errored(400, `contentType=${contentType}, expected application/json`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch (error) {
    return errored(400, `couldn't get version/kind; json parse error: ${(error as Error).message}`);
  }
  try {
    return decodeAdmissionReview(parsed);
  } catch (error) {
    return errored(400, (error as Error).message);
  }
}

function withDefaults(decoded: DecodedAdmissionReview): AdmissionReview {
  // v1beta1 has v1's shape: the hooks see one type.
  return {
    apiVersion: decoded.apiVersion as AdmissionReview["apiVersion"],
    kind: "AdmissionReview",
    request: decoded.request,
  };
}

/**
 * controller-runtime's Response.Complete and writeResponseTyped: the request's uid, a status code (200 when none), and
 * the request's apiVersion.
 */
function typed(decoded: DecodedAdmissionReview, response: Partial<AdmissionResponse>): unknown {
  const status = { ...response.status, code: response.status?.code || 200 };
  return {
    apiVersion: decoded.apiVersion,
    kind: "AdmissionReview",
    response: { ...response, allowed: response.allowed === true, uid: decoded.request.uid, status },
  };
}
