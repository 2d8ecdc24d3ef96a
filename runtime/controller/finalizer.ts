// Adds and removes the runtime's finalizer with JSON patches guarded by a `test` op, so a concurrent change makes the
// patch fail, never clobbers.
import type { ResourceClient } from "../client/resource-client.js";
import type { KubernetesObject } from "../client/types.js";

export async function ensureFinalizer<T extends KubernetesObject>(
  client: ResourceClient<T>,
  obj: T,
  finalizer: string,
): Promise<void> {
  const current = obj.metadata?.finalizers;
  const ops = current
    ? [
        { op: "test" as const, path: "/metadata/finalizers", value: current },
        { op: "add" as const, path: "/metadata/finalizers/-", value: finalizer },
      ]
    : [
        { op: "test" as const, path: "/metadata/resourceVersion", value: obj.metadata?.resourceVersion },
        { op: "add" as const, path: "/metadata/finalizers", value: [finalizer] },
      ];
  await client.patch(obj.metadata?.namespace, obj.metadata!.name!, { type: "json", ops });
}

export async function removeFinalizer<T extends KubernetesObject>(
  client: ResourceClient<T>,
  obj: T,
  finalizer: string,
): Promise<void> {
  const current = obj.metadata?.finalizers ?? [];
  const index = current.indexOf(finalizer);
  if (index < 0) return;
  await client.patch(obj.metadata?.namespace, obj.metadata!.name!, {
    type: "json",
    ops: [
      { op: "test", path: `/metadata/finalizers/${index}`, value: finalizer },
      { op: "remove", path: `/metadata/finalizers/${index}` },
    ],
  });
}
