// startControlPlane's guard against a port taken between picking it and the process binding it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { retryOnPortClash } from "#runtime/envtest/util.js";

// The shape of the error waitUntil throws when a process died, with its log's tail.
const clash = () =>
  new Error(
    'control plane: etcd /health failed: etcd exited\n--- last lines of etcd.log:\n{"level":"fatal","msg":"listen tcp 127.0.0.1:40113: bind: address already in use"}',
  );

test("a start that fails on a taken port is tried again, and its result returned", async () => {
  let calls = 0;
  const result = await retryOnPortClash(() => {
    calls++;
    return calls < 3 ? Promise.reject(clash()) : Promise.resolve("started");
  });
  assert.equal(result, "started");
  assert.equal(calls, 3);
});

test("any other start failure is thrown at once", async () => {
  let calls = 0;
  const other = new Error("control plane: kube-apiserver /readyz not ready after 60s");
  await assert.rejects(
    retryOnPortClash(() => {
      calls++;
      return Promise.reject(other);
    }),
    (e) => e === other,
  );
  assert.equal(calls, 1);
});

test("port clashes on every attempt: the last one's error is thrown after the given attempts", async () => {
  let calls = 0;
  await assert.rejects(
    retryOnPortClash(() => {
      calls++;
      return Promise.reject(clash());
    }, 2),
    /address already in use/,
  );
  assert.equal(calls, 2);
});
