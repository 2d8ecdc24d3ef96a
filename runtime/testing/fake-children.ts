// ctx.children for unit tests: reads the FakeCluster directly (no informer cache) and skips an apply whose fields equal
// what the same field manager applied last, as the real one does by reading managedFields.
import { isDeepStrictEqual } from "node:util";
import { isNotFound } from "../client/api-error.js";
import type { ApplyConfiguration } from "../client/patch.js";
import type { KubernetesObject, ResourceDescriptor } from "../client/types.js";
import type { ChildApplyBody, ChildObjects } from "../children/child-objects.js";
import { appliedFieldsOf } from "../children/managed-fields.js";
import type { FakeCluster } from "./fake-cluster.js";

/** A ChildObjects over `cluster` for hook unit tests; `sent` counts the requests apply and delete made. */
export function fakeChildObjects(
  cluster: FakeCluster,
  fieldManager = "test-operator",
): ChildObjects & { sent: { apply: number; delete: number } } {
  const lastApplied = new Map<string, Record<string, unknown>>();
  const id = (r: ResourceDescriptor, ns: string | undefined, name: string) =>
    `${r.group}/${r.plural}/${r.namespaced ? (ns ?? "") : ""}/${name}`;
  const sent = { apply: 0, delete: 0 };
  const get = <T extends KubernetesObject>(
    r: ResourceDescriptor<T>,
    ns: string | undefined,
    name: string,
  ): T | undefined => {
    try {
      return cluster.get(r, r.namespaced ? ns : undefined, name);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  };
  return {
    sent,
    get,
    list: <T extends KubernetesObject>(r: ResourceDescriptor<T>, ns?: string): T[] =>
      cluster.list(r, r.namespaced ? ns : undefined).items,
    // eslint-disable-next-line @typescript-eslint/require-await -- async so that the fake cluster's errors reject, as the real apply's do
    async apply<T extends KubernetesObject>(r: ResourceDescriptor<T>, body: ChildApplyBody<T> & { kind: string }) {
      const desired = body as ApplyConfiguration<T>; // its kind was checked apart (SameKind)
      const name = desired.metadata.name;
      const ns = desired.metadata.namespace;
      const fields = appliedFieldsOf(desired);
      const live = get(r, ns, name);
      if (live && isDeepStrictEqual(lastApplied.get(id(r, ns, name)), fields)) return { object: live, changed: false };
      sent.apply++;
      const object = cluster.patch(r, r.namespaced ? ns : undefined, name, {
        type: "apply",
        body: desired,
        fieldManager,
        force: true,
      });
      lastApplied.set(id(r, ns, name), fields);
      return { object, changed: true };
    },
    // eslint-disable-next-line @typescript-eslint/require-await -- async so that the fake cluster's errors reject, as the real delete's do
    async delete(r, ns, name) {
      if (!get(r, ns, name)) return false;
      sent.delete++;
      cluster.delete(r, r.namespaced ? ns : undefined, name);
      lastApplied.delete(id(r, ns, name));
      return true;
    },
  };
}
