// Errors a hook throws to refuse a request, carrying the meta/v1 Status the API server shows the client: Invalid
// (422, with field causes, apierrors.NewInvalid) and Forbidden (403, apierrors.NewForbidden), worded as the API
// server words them so `kubectl` and the runtime client's ApiError read them as they read the server's own.
import type { Status } from "../client/types.js";

/** k8s.io/apimachinery/pkg/util/validation/field ErrorType, as Status.details.causes[].reason carries it. */
export type FieldErrorType =
  | "FieldValueNotFound"
  | "FieldValueRequired"
  | "FieldValueDuplicate"
  | "FieldValueInvalid"
  | "FieldValueNotSupported"
  | "FieldValueForbidden"
  | "FieldValueTooLong"
  | "FieldValueTooMany"
  | "InternalError"
  | "FieldValueTypeInvalid";

/** One cause of an Invalid error: a field path (`spec.replicas`, `spec.ports[0].name`) and what is wrong with it. */
export interface FieldError {
  type: FieldErrorType;
  field: string;
  /** The cause's message as the API server words it (field.Error.ErrorBody): `Invalid value: 5: must be at most 3`. */
  message: string;
}

// field.ErrorType.String(): the words that open each cause's message.
const typeWords: Record<FieldErrorType, string> = {
  FieldValueNotFound: "Not found",
  FieldValueRequired: "Required value",
  FieldValueDuplicate: "Duplicate value",
  FieldValueInvalid: "Invalid value",
  FieldValueNotSupported: "Unsupported value",
  FieldValueForbidden: "Forbidden",
  FieldValueTooLong: "Too long",
  FieldValueTooMany: "Too many",
  InternalError: "Internal error",
  FieldValueTypeInvalid: "Invalid value",
};

// Types whose message never shows the value (field.Error.ErrorBody).
const withoutValue = new Set<FieldErrorType>([
  "FieldValueRequired",
  "FieldValueForbidden",
  "FieldValueTooLong",
  "InternalError",
]);

/** Go's %v / %q rendering of a bad value: strings quoted, numbers and booleans bare, anything else as JSON. */
function showValue(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

function fieldError(
  type: FieldErrorType,
  path: string,
  detail: string | undefined,
  value?: { bad: unknown },
): FieldError {
  let message = typeWords[type];
  if (value && !withoutValue.has(type)) message += `: ${showValue(value.bad)}`;
  if (detail) message += `: ${detail}`;
  return { type, field: path, message };
}

/**
 * field.Invalid, field.Required, ... in TypeScript casing: FieldErrors worded as the API server's.
 * `field.invalid("spec.replicas", 5, "must be at most 3")` → `spec.replicas: Invalid value: 5: must be at most 3`.
 */
export const field = {
  invalid: (path: string, value: unknown, detail: string) =>
    fieldError("FieldValueInvalid", path, detail, { bad: value }),
  required: (path: string, detail?: string) => fieldError("FieldValueRequired", path, detail),
  forbidden: (path: string, detail: string) => fieldError("FieldValueForbidden", path, detail),
  notFound: (path: string, value: unknown) => fieldError("FieldValueNotFound", path, undefined, { bad: value }),
  duplicate: (path: string, value: unknown) => fieldError("FieldValueDuplicate", path, undefined, { bad: value }),
  notSupported: (path: string, value: unknown, supported: readonly string[]) =>
    fieldError(
      "FieldValueNotSupported",
      path,
      supported.length > 0 ? `supported values: ${supported.map((s) => JSON.stringify(s)).join(", ")}` : undefined,
      { bad: value },
    ),
  tooLong: (path: string, maxLength: number) =>
    fieldError("FieldValueTooLong", path, `may not be more than ${maxLength} bytes`),
  tooMany: (path: string, actual: number, max: number) =>
    fieldError("FieldValueTooMany", path, `must have at most ${max} items`, { bad: actual }),
  internal: (path: string, detail: string) => fieldError("InternalError", path, detail),
};

/** `field: message` as field.Error.Error() prints it (an empty path prints the message alone). */
export function fieldErrorText(e: FieldError): string {
  return e.field ? `${e.field}: ${e.message}` : e.message;
}

/** An error carrying the meta/v1 Status a webhook answers with (apierrors.StatusError). */
export class StatusError extends Error {
  override name = "StatusError";
  readonly status: Status;
  constructor(status: Status) {
    super(status.message ?? status.reason ?? `status ${status.code ?? ""}`);
    this.status = status;
  }
}

/** `Widget.example.com`: a kind qualified by its group (schema.GroupKind.String(); the core group prints the kind). */
export interface GroupKind {
  group: string;
  kind: string;
}

const qualified = (name: string, group: string) => (group ? `${name}.${group}` : name);

/**
 * The object is invalid: HTTP 422, reason Invalid, one cause per FieldError, and the API server's message
 * `Widget.example.com "w1" is invalid: spec.replicas: Invalid value: 5: must be at most 3` (several causes in [ ]).
 * Also takes the generated validate()'s errors (`new Invalid(gk, name, result.errors)`), which carry `reason`.
 */
export class Invalid extends StatusError {
  override name = "Invalid";
  readonly causes: readonly FieldError[];
  constructor(
    groupKind: GroupKind,
    objectName: string,
    causes: ReadonlyArray<FieldError | { reason: string; field: string; message: string }>,
  ) {
    const errors: FieldError[] = causes.map((c) =>
      "type" in c ? c : { type: c.reason as FieldErrorType, field: c.field, message: c.message },
    );
    const texts = errors.map(fieldErrorText);
    const what = `${qualified(groupKind.kind, groupKind.group)} ${JSON.stringify(objectName)} is invalid`;
    super({
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      code: 422,
      reason: "Invalid",
      message: texts.length === 0 ? what : `${what}: ${texts.length === 1 ? texts[0]! : `[${texts.join(", ")}]`}`,
      details: {
        name: objectName,
        group: groupKind.group,
        kind: groupKind.kind,
        causes: errors.map((e) => ({ reason: e.type, message: e.message, field: e.field })),
      },
    });
    this.causes = errors;
  }
}

/** The request is refused: HTTP 403, reason Forbidden, `widgets.example.com "w1" is forbidden: <message>`. */
export class Forbidden extends StatusError {
  override name = "Forbidden";
  constructor(groupResource: { group: string; resource: string }, objectName: string, message: string) {
    super({
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      code: 403,
      reason: "Forbidden",
      message: `${qualified(groupResource.resource, groupResource.group)} ${JSON.stringify(objectName)} is forbidden: ${message}`,
      details: { name: objectName, group: groupResource.group, kind: groupResource.resource },
    });
  }
}
