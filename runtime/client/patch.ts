// Patch types the API server accepts for custom resources (JSON, merge, server-side apply) and their content types.
import type { V1ObjectMeta } from "@kubernetes/client-node";
import type { KubernetesObject } from "./types.js";

type Primitive = string | number | boolean | bigint | symbol | null | undefined;
// Leaves that must not be recursed into (V1ObjectMeta carries Date fields).
type Leaf = Primitive | Date | ((...args: never[]) => unknown);

/** Every property optional, recursively; array elements become deep-partial too (as in apply configurations). */
export type DeepPartial<T> = T extends Leaf
  ? T
  : T extends ReadonlyArray<infer E>
    ? Array<DeepPartial<E>>
    : T extends object
      ? { [K in keyof T]?: DeepPartial<T[K]> }
      : T;

/**
 * An RFC 7386 JSON merge patch of T: every property optional, `null` deletes it, and an array is replaced
 * whole, so its elements must be complete (a merge patch cannot patch one list element).
 * Any DeepPartial<T> without arrays is a MergePatch<T>.
 */
export type MergePatch<T> = T extends Leaf
  ? T
  : T extends ReadonlyArray<unknown>
    ? T
    : T extends object
      ? { [K in keyof T]?: MergePatch<T[K]> | null }
      : T;

/** A server-side apply body: a deep-partial T that must name its apiVersion, kind and metadata.name. */
export type ApplyConfiguration<T extends KubernetesObject> = Omit<
  DeepPartial<T>,
  "apiVersion" | "kind" | "metadata"
> & {
  apiVersion: NonNullable<T["apiVersion"]>;
  kind: NonNullable<T["kind"]>;
  metadata: DeepPartial<V1ObjectMeta> & { name: string };
};

/** One RFC 6902 JSON patch operation. Paths are JSON pointers; build segments with `jsonPointer`. */
export type JsonPatchOperation =
  | { op: "add"; path: string; value: unknown }
  | { op: "remove"; path: string }
  | { op: "replace"; path: string; value: unknown }
  | { op: "move"; from: string; path: string }
  | { op: "copy"; from: string; path: string }
  | { op: "test"; path: string; value: unknown };

/**
 * The patch kinds custom resources support. Strategic merge is deliberately absent: CRDs reject it with 415.
 * For "apply" the body is sent as JSON (JSON is YAML) with `fieldManager` and `force` as query parameters.
 */
export type Patch<T extends KubernetesObject> =
  | { type: "json"; ops: JsonPatchOperation[] }
  | { type: "merge"; body: MergePatch<T> }
  | { type: "apply"; body: ApplyConfiguration<T>; fieldManager: string; force?: boolean };

export type PatchType = Patch<KubernetesObject>["type"];

export const PATCH_CONTENT_TYPES: Readonly<Record<PatchType, string>> = {
  json: "application/json-patch+json",
  merge: "application/merge-patch+json",
  apply: "application/apply-patch+yaml",
};

// Builds a JSON pointer from raw segments, escaping `~` and `/` (e.g. label keys like `app.kubernetes.io/name`).
export { jsonPointer } from "../json/pointer.js";
