// ctx.children for unit tests: reads the FakeCluster directly (no informer cache) and skips an apply whose fields equal
// what the same field manager applied last, as the real one does by reading managedFields.
import { isDeepStrictEqual } from "node:util";
import { isNotFound } from "../client/api-error.js";
import type { ApplyConfiguration } from "../client/patch.js";
import type { KubernetesObject, ResourceDescriptor } from "../client/types.js";
import type { ChildObjects } from "../children/child-objects.js";
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
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- implements ChildObjects.get: the fake cluster is untyped, C is the caller's kind
  const get = <C extends KubernetesObject>(
    r: ResourceDescriptor,
    ns: string | undefined,
    name: string,
  ): C | undefined => {
    try {
      return cluster.get(r, r.namespaced ? ns : undefined, name) as unknown as C;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  };
  return {
    sent,
    get,
    list: <C extends KubernetesObject>(r: ResourceDescriptor, ns?: string) =>
      cluster.list(r, r.namespaced ? ns : undefined).items as unknown as C[],
    // eslint-disable-next-line @typescript-eslint/require-await -- async so that the fake cluster's errors reject, as the real apply's do
    async apply<C extends KubernetesObject>(r: ResourceDescriptor, desired: ApplyConfiguration<C>) {
      const name = desired.metadata.name;
      const ns = desired.metadata.namespace;
      const fields = appliedFieldsOf(desired);
      const live = get<C>(r, ns, name);
      if (live && isDeepStrictEqual(lastApplied.get(id(r, ns, name)), fields)) return { object: live, changed: false };
      sent.apply++;
      const object = cluster.patch(r, r.namespaced ? ns : undefined, name, {
        type: "apply",
        body: desired,
        fieldManager,
        force: true,
      }) as unknown as C;
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
