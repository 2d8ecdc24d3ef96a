// deleteManifests (undeploy / uninstall): a kind the server no longer serves, or an object already gone, is skipped;
// a discovery failure that says nothing about the kind (forbidden, a server error, no connection) fails the delete,
// so `undeploy` does not exit 0 with everything left in place.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ApiError, type KubeClient, type KubernetesObject } from "@crdgen/runtime";
import { deleteManifests } from "@crdgen/runtime/deploy";

const configMap: KubernetesObject = {
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "settings", namespace: "team-a" },
};
const widget: KubernetesObject = {
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: { name: "w", namespace: "team-a" },
};
const status = (code: number, method: string, path: string) =>
  new ApiError({ status: code, method, path, body: { kind: "Status", code } });

/** A client answering discovery and DELETE from `answer` (a value, or an error to throw); records the DELETEs. */
function fakeKube(answer: (method: string, path: string) => unknown): { kube: KubeClient; deleted: string[] } {
  const deleted: string[] = [];
  const kube = {
    defaultNamespace: undefined,
    close: () => undefined,
    watch: () => {
      throw new Error("no watch expected");
    },
    request: ({ method, path }: { method: string; path: string }) => {
      const value = answer(method, path);
      if (value instanceof Error) return Promise.reject(value);
      if (method === "DELETE") deleted.push(path);
      return Promise.resolve(value);
    },
  } as unknown as KubeClient;
  return { kube, deleted };
}

const coreV1 = { resources: [{ name: "configmaps", kind: "ConfigMap", namespaced: true }] };

test("a kind no longer served (its group gone: 404) and an object already gone are skipped", async () => {
  const { kube, deleted } = fakeKube((method, path) => {
    if (path === "/api/v1") return coreV1;
    if (path === "/apis/example.com/v1") return status(404, method, path);
    return status(404, method, path); // the ConfigMap is gone too
  });
  await deleteManifests(kube, [configMap, widget]);
  assert.deepEqual(deleted, []);
});

const failures: Array<[string, Error]> = [
  ["forbidden (403)", status(403, "GET", "/apis/example.com/v1")],
  ["a server error (500)", status(500, "GET", "/apis/example.com/v1")],
  ["no connection", Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6443"), { code: "ECONNREFUSED" })],
];
for (const [what, failure] of failures)
  test(`discovery failing with ${what} fails the delete instead of skipping the kind`, async () => {
    const { kube, deleted } = fakeKube((_method, path) => {
      if (path === "/api/v1") return coreV1;
      if (path === "/apis/example.com/v1") return failure;
      return {};
    });
    // Objects are deleted in reverse order: the Widget's discovery comes first and stops everything.
    await assert.rejects(deleteManifests(kube, [configMap, widget]), (error) => error === failure);
    assert.deepEqual(deleted, [], "nothing deleted after the failure");
  });
