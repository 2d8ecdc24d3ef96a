// Admission webhooks for one resource (controller-runtime's CustomDefaulter and CustomValidator): typed hooks in,
// AdmissionReview v1 answers out. Defaulting mutates a copy and the runtime sends the JSON patch from the request's
// object to it; validation answers allowed, or refused with the Status the hook's error carries.
import { createRequire } from "node:module";
import type * as JsonPatch from "fast-json-patch";
import type { KubernetesObject, ResourceDescriptor, Status } from "../client/types.js";
import { reviveObjectMeta } from "../client/object-meta-dates.js";
import { isPanic, recoveredPanic } from "../panic/panic.js";
import { StatusError } from "./errors.js";
import {
  admissionPath,
  BadRequest,
  type AdmissionOperation,
  type WebhookRegistration,
  type WebhookRequestContext,
} from "./registration.js";

/** authentication.k8s.io/v1 UserInfo: who made the request. */
export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** admission.k8s.io/v1 AdmissionRequest, as the API server sends it. */
export interface AdmissionRequest {
  uid: string;
  kind: { group: string; version: string; kind: string };
  resource: { group: string; version: string; resource: string };
  subResource?: string;
  requestKind?: { group: string; version: string; kind: string };
  requestResource?: { group: string; version: string; resource: string };
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: AdmissionOperation;
  userInfo: UserInfo;
  object?: unknown;
  oldObject?: unknown;
  dryRun?: boolean;
  options?: unknown;
}

/** admission.k8s.io/v1 AdmissionResponse. */
export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: Status;
  /** base64 of a JSON patch (RFC 6902) array. */
  patch?: string;
  patchType?: "JSONPatch";
  auditAnnotations?: Record<string, string>;
  warnings?: string[];
}

export interface AdmissionReview {
  apiVersion: "admission.k8s.io/v1";
  kind: "AdmissionReview";
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}

/** What a hook learns about the request besides the object(s). */
export interface AdmissionHookRequest {
  uid: string;
  operation: AdmissionOperation;
  userInfo: UserInfo;
  /** True for `kubectl --dry-run=server`: the hook must have no side effects. */
  dryRun: boolean;
  namespace?: string;
  name?: string;
  /** Aborted when the server's per-request timeout passes (default 10 s, the API server's own webhook timeout). */
  signal: AbortSignal;
}

/** Messages the API server passes to the client as `Warning:` headers (kubectl prints them). */
export type Warnings = string[];

/** What a hook returns: a value or nothing, now or later. */
// eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- a hook that only throws is typed `() => void`
export type HookResult<R> = R | void | Promise<R | void>;

/**
 * The hooks of one kind (what `<kind>.webhooks.ts` implements). Objects arrive typed, metadata timestamps as Date
 * (as the client returns them). A hook refuses by throwing: `Invalid` (422 with field causes), `Forbidden` (403) or
 * any StatusError sends that Status; any other error refuses with 403 and the error's message, as controller-runtime
 * does (admission.Denied).
 */
export interface AdmissionHooks<T extends KubernetesObject> {
  /** Sets defaults by changing obj in place (CREATE and UPDATE). The runtime answers with the JSON patch. */
  default?(obj: T, req: AdmissionHookRequest): HookResult<never>;
  validateCreate?(obj: T, req: AdmissionHookRequest): HookResult<Warnings>;
  validateUpdate?(oldObj: T, obj: T, req: AdmissionHookRequest): HookResult<Warnings>;
  /** obj is the object being deleted (the request's oldObject). */
  validateDelete?(obj: T, req: AdmissionHookRequest): HookResult<Warnings>;
}

/**
 * The registrations for one resource's hooks: a mutating webhook at `/mutate-<group>-<version>-<kind>` when
 * `default` is given (operations CREATE, UPDATE), a validating one at `/validate-...` when any validate hook is
 * (CREATE, UPDATE, and DELETE when validateDelete is given). `resource` is the version the hooks are typed on.
 */
export function admissionWebhooksFor<T extends KubernetesObject>(
  resource: ResourceDescriptor,
  hooks: AdmissionHooks<T>,
): WebhookRegistration[] {
  const out: WebhookRegistration[] = [];
  if (hooks.default) {
    const defaulter = hooks.default.bind(hooks) as (
      obj: KubernetesObject,
      req: AdmissionHookRequest,
    ) => HookResult<never>;
    out.push({
      path: admissionPath("mutate", resource),
      type: "mutating",
      resource,
      operations: ["CREATE", "UPDATE"],
      handle: (review, context) => answer(review, context, (request, req) => mutate(request, req, defaulter)),
    });
  }
  if (hooks.validateCreate || hooks.validateUpdate || hooks.validateDelete) {
    out.push({
      path: admissionPath("validate", resource),
      type: "validating",
      resource,
      operations: hooks.validateDelete ? ["CREATE", "UPDATE", "DELETE"] : ["CREATE", "UPDATE"],
      handle: (review, context) => answer(review, context, (request, req) => validate(request, req, hooks)),
    });
  }
  return out;
}

/** Reads the review, runs one hook, wraps its response (uid filled in) in an AdmissionReview. */
async function answer(
  review: unknown,
  context: WebhookRequestContext,
  run: (request: AdmissionRequest, req: AdmissionHookRequest) => Promise<Omit<AdmissionResponse, "uid">>,
): Promise<AdmissionReview> {
  const { apiVersion, request } = decodeAdmissionReview(review);
  const req: AdmissionHookRequest = {
    uid: request.uid,
    operation: request.operation,
    userInfo: request.userInfo,
    dryRun: request.dryRun === true,
    signal: context.signal,
    ...(request.namespace ? { namespace: request.namespace } : {}),
    ...(request.name ? { name: request.name } : {}),
  };
  let response: Omit<AdmissionResponse, "uid">;
  try {
    response = await run(request, req);
  } catch (error) {
    if (isPanic(error)) {
      // controller-runtime's recovered panic: Errored(500, "panic: <value> [recovered]").
      context.onPanic?.(error);
      response = { allowed: false, status: { code: 500, message: recoveredPanic(error).message } };
    } else {
      response = refusal(error);
      context.log.info("admission refused", { operation: request.operation, code: response.status?.code });
    }
  }
  const version = apiVersion as AdmissionReview["apiVersion"];
  return { apiVersion: version, kind: "AdmissionReview", response: { uid: request.uid, ...response } };
}

const reviewVersions = new Set(["admission.k8s.io/v1", "admission.k8s.io/v1beta1"]);

/** A decoded review: its version (for the answer) and its request, `{}` and uid "" when absent as Go decodes them. */
export interface DecodedAdmissionReview {
  apiVersion: string;
  request: AdmissionRequest;
}

/**
 * Decodes an AdmissionReview as controller-runtime's deserializer does (apiVersion and kind default to v1
 * AdmissionReview; another kind or version is not registered); throws a BadRequest with Go's wording.
 */
export function decodeAdmissionReview(review: unknown): DecodedAdmissionReview {
  // Go decodes `null` into the empty review.
  const r = (review ?? {}) as Record<string, unknown>;
  if (typeof r !== "object" || Array.isArray(r))
    throw new BadRequest(`couldn't get version/kind; json parse error: the body is not a JSON object`);
  const apiVersion = stringField(r, "apiVersion") || "admission.k8s.io/v1";
  const kind = stringField(r, "kind") || "AdmissionReview";
  if (kind !== "AdmissionReview" || !reviewVersions.has(apiVersion))
    throw new BadRequest(`no kind "${kind}" is registered for version "${apiVersion}"`);
  const request = (r["request"] ?? {}) as AdmissionRequest;
  if (typeof request !== "object" || Array.isArray(request))
    throw new BadRequest("the AdmissionReview's request is not an object");
  const uid = (request as { uid?: unknown }).uid ?? "";
  if (typeof uid !== "string") throw new BadRequest("the AdmissionReview's request uid is not a string");
  return { apiVersion, request: { ...request, uid } };
}

function stringField(r: Record<string, unknown>, key: string): string {
  const value = r[key] ?? "";
  if (typeof value !== "string")
    throw new BadRequest(`couldn't get version/kind; json parse error: ${key} is not a string`);
  return value;
}

/**
 * The response for a thrown error: a StatusError's own Status; a request without the object it needs, 400 (as
 * controller-runtime's Errored); anything else controller-runtime's Denied (403 Forbidden, the error's message).
 */
export function refusal(error: unknown): Omit<AdmissionResponse, "uid"> {
  if (error instanceof StatusError) return { allowed: false, status: { ...error.status } };
  if (error instanceof BadRequest) return { allowed: false, status: { code: 400, message: error.message } };
  const message = error instanceof Error ? error.message : String(error);
  return { allowed: false, status: { code: 403, reason: "Forbidden", message } };
}

const allowed = (warnings?: unknown): Omit<AdmissionResponse, "uid"> => ({
  allowed: true,
  status: { code: 200 },
  ...(Array.isArray(warnings) && warnings.length > 0 ? { warnings: warnings.map(String) } : {}),
});

function objectOf(value: unknown, which: "object" | "oldObject"): KubernetesObject {
  if (!value || typeof value !== "object" || Array.isArray(value))
    throw new BadRequest(`the AdmissionReview's request has no ${which}`);
  return reviveObjectMeta(structuredClone(value) as KubernetesObject);
}

async function mutate(
  request: AdmissionRequest,
  req: AdmissionHookRequest,
  defaulter: (obj: KubernetesObject, req: AdmissionHookRequest) => HookResult<never>,
): Promise<Omit<AdmissionResponse, "uid">> {
  // As controller-runtime: a DELETE is never defaulted.
  if (request.operation === "DELETE" || request.operation === "CONNECT") return allowed();
  const obj = objectOf(request.object, "object");
  await defaulter(obj, req);
  const ops = defaultingPatch(request.object as Record<string, unknown>, obj);
  return ops.length === 0
    ? allowed()
    : { ...allowed(), patchType: "JSONPatch", patch: Buffer.from(JSON.stringify(ops)).toString("base64") };
}

/**
 * The JSON patch from the object the API server sent to the hook's result. Timestamps revived as Date print with
 * milliseconds; those the hook left unchanged are compared as the strings the server sent, so they are not patched.
 */
export function defaultingPatch(sent: Record<string, unknown>, result: KubernetesObject): JsonPatch.Operation[] {
  const after = JSON.parse(JSON.stringify(result)) as Record<string, unknown>;
  restoreTimestamps(sent, after);
  return loadJsonPatch().compare(sent, after);
}

// fast-json-patch is required at the first defaulting answer, not at import: every operator that imports its kinds'
// generated modules imports this file, and an ES import of a CommonJS package also loads Node's cjs-module-lexer
// (together about 0.5 MB of heap in each replica, webhooks served or not). require keeps it once loaded.
const requireCjs = createRequire(import.meta.url);
const loadJsonPatch = (): typeof JsonPatch => requireCjs("fast-json-patch") as typeof JsonPatch;

function restoreTimestamps(sent: Record<string, unknown>, after: Record<string, unknown>): void {
  const before = sent["metadata"] as Record<string, unknown> | undefined;
  const now = after["metadata"] as Record<string, unknown> | undefined;
  if (!before || !now) return;
  const same = (a: unknown, b: unknown) =>
    typeof a === "string" && typeof b === "string" && a !== b && Date.parse(a) === Date.parse(b);
  for (const key of ["creationTimestamp", "deletionTimestamp"]) if (same(before[key], now[key])) now[key] = before[key];
  const fieldsBefore = before["managedFields"];
  const fieldsNow = now["managedFields"];
  if (Array.isArray(fieldsBefore) && Array.isArray(fieldsNow))
    fieldsNow.forEach((entry: Record<string, unknown>, i) => {
      const was = fieldsBefore[i] as Record<string, unknown> | undefined;
      if (was && same(was["time"], entry["time"])) entry["time"] = was["time"];
    });
}

async function validate(
  request: AdmissionRequest,
  req: AdmissionHookRequest,
  hooks: AdmissionHooks<KubernetesObject>,
): Promise<Omit<AdmissionResponse, "uid">> {
  switch (request.operation) {
    case "CREATE":
      return allowed(await hooks.validateCreate?.(objectOf(request.object, "object"), req));
    case "UPDATE":
      return allowed(
        await hooks.validateUpdate?.(objectOf(request.oldObject, "oldObject"), objectOf(request.object, "object"), req),
      );
    case "DELETE":
      return allowed(await hooks.validateDelete?.(objectOf(request.oldObject, "oldObject"), req));
    case "CONNECT":
      return allowed();
    default:
      // As controller-runtime's validator: an operation it does not know is refused, never let through.
      throw new BadRequest(`unknown operation ${JSON.stringify((request.operation as string | undefined) ?? "")}`);
  }
}
