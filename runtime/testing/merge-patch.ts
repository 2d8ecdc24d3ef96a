// RFC 6902 JSON patch and RFC 7386 merge patch over plain JSON values, for the fake client.
import type { JsonPatchOperation } from "../client/patch.js";

type Json = unknown;

/** Applies ops to a deep copy of doc; throws (with the failing op) when a path is missing or a test fails. */
export function applyJsonPatch(doc: Json, ops: readonly JsonPatchOperation[]): Json {
  let root = structuredClone(doc);
  for (const op of ops) {
    switch (op.op) {
      case "add":
        root = put(root, op.path, structuredClone(op.value), "add");
        break;
      case "replace":
        get(root, op.path);
        root = put(root, op.path, structuredClone(op.value), "replace");
        break;
      case "remove":
        root = remove(root, op.path);
        break;
      case "move": {
        const value = get(root, op.from);
        root = remove(root, op.from);
        root = put(root, op.path, value, "add");
        break;
      }
      case "copy":
        root = put(root, op.path, structuredClone(get(root, op.from)), "add");
        break;
      case "test":
        if (JSON.stringify(canonical(get(root, op.path))) !== JSON.stringify(canonical(op.value))) {
          throw new Error(`test operation failed at ${op.path}`);
        }
        break;
    }
  }
  return root;
}

/** RFC 7386: objects merge recursively, null deletes, everything else (arrays included) replaces. */
export function applyMergePatch(target: Json, patch: Json): Json {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return structuredClone(patch);
  const out: Record<string, Json> =
    target !== null && typeof target === "object" && !Array.isArray(target)
      ? { ...(target as Record<string, Json>) }
      : {};
  for (const [k, v] of Object.entries(patch as Record<string, Json>)) {
    if (v === null) Reflect.deleteProperty(out, k);
    else out[k] = applyMergePatch(out[k], v);
  }
  return out;
}

function segments(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new Error(`invalid JSON pointer ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function get(root: Json, pointer: string): Json {
  let cur = root;
  for (const s of segments(pointer)) {
    if (Array.isArray(cur)) {
      const i = Number(s);
      if (!/^\d+$/.test(s) || i >= cur.length) throw new Error(`no element at ${pointer}`);
      cur = cur[i];
    } else if (cur !== null && typeof cur === "object" && Object.hasOwn(cur, s)) {
      cur = (cur as Record<string, Json>)[s];
    } else throw new Error(`no value at ${pointer}`);
  }
  return cur;
}

function parentOf(root: Json, pointer: string): { parent: Json; last: string } {
  const segs = segments(pointer);
  const last = segs.pop();
  if (last === undefined) throw new Error("the root cannot be a parent");
  const parentPointer = segs.map((s) => "/" + s.replace(/~/g, "~0").replace(/\//g, "~1")).join("");
  return { parent: get(root, parentPointer), last };
}

function put(root: Json, pointer: string, value: Json, mode: "add" | "replace"): Json {
  if (pointer === "") return value;
  const { parent, last } = parentOf(root, pointer);
  if (Array.isArray(parent)) {
    const i = last === "-" ? parent.length : Number(last);
    if (!Number.isInteger(i) || i < 0 || i > parent.length || (mode === "replace" && i === parent.length))
      throw new Error(`bad array index at ${pointer}`);
    if (mode === "add") parent.splice(i, 0, value);
    else parent[i] = value;
  } else if (parent !== null && typeof parent === "object") {
    (parent as Record<string, Json>)[last] = value;
  } else throw new Error(`cannot set ${pointer}: parent is not a container`);
  return root;
}

function remove(root: Json, pointer: string): Json {
  get(root, pointer);
  const { parent, last } = parentOf(root, pointer);
  if (Array.isArray(parent)) parent.splice(Number(last), 1);
  else Reflect.deleteProperty(parent as Record<string, Json>, last);
  return root;
}

function canonical(v: Json): Json {
  if (Array.isArray(v)) return v.map(canonical);
  if (v !== null && typeof v === "object")
    return Object.fromEntries(
      Object.entries(v)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, x]) => [k, canonical(x)]),
    );
  return v;
}
