// retryOnConflict: a read-modify-write is retried on 409 Conflict only, gives up after its steps, and waits on the
// clock it is given.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ApiError, retryOnConflict } from "@crdgen/runtime";
import { type Status } from "@crdgen/runtime/client";
import { FakeClock } from "@crdgen/runtime/testing";
import { setImmediate as tick } from "node:timers/promises";

const settle = async () => {
  for (let i = 0; i < 5; i++) await tick();
};

function apiError(code: number, reason: string): ApiError {
  const body: Status = { kind: "Status", apiVersion: "v1", status: "Failure", code, reason, message: reason };
  return new ApiError({
    status: code,
    method: "PUT",
    path: "/apis/coordination.k8s.io/v1/namespaces/default/leases/l",
    body,
  });
}

test("retryOnConflict calls again after each conflict and returns the first success", async () => {
  let calls = 0;
  const result = await retryOnConflict(() => {
    calls++;
    return calls < 3 ? Promise.reject(apiError(409, "Conflict")) : Promise.resolve("written");
  });
  assert.equal(result, "written");
  assert.equal(calls, 3);
});

test("retryOnConflict throws any other error at once, AlreadyExists (also a 409) included", async () => {
  for (const error of [apiError(422, "Invalid"), apiError(409, "AlreadyExists"), new Error("boom")]) {
    let calls = 0;
    await assert.rejects(
      retryOnConflict(() => {
        calls++;
        return Promise.reject(error);
      }),
      (e) => e === error,
    );
    assert.equal(calls, 1, `${error.message} is not retried`);
  }
});

test("retryOnConflict gives up after its steps and throws the last conflict", async () => {
  let calls = 0;
  const last = apiError(409, "Conflict");
  await assert.rejects(
    retryOnConflict(
      () => {
        calls++;
        return Promise.reject(calls === 4 ? last : apiError(409, "Conflict"));
      },
      { steps: 4, initialMs: 1, factor: 2, jitter: 0.1 },
    ),
    (e) => e === last,
  );
  assert.equal(calls, 4);
});

test("retryOnConflict waits on the clock it is given: a FakeClock's step releases the next attempt", async () => {
  const clock = new FakeClock();
  let calls = 0;
  const done = retryOnConflict(
    () => (++calls < 3 ? Promise.reject(apiError(409, "Conflict")) : Promise.resolve("written")),
    { steps: 3, initialMs: 60_000, factor: 2, jitter: 0 },
    clock,
  );
  await settle();
  assert.equal(calls, 1);
  clock.step(59_999);
  await settle();
  assert.equal(calls, 1, "the first wait is 60 s of the clock");
  clock.step(1);
  await settle();
  assert.equal(calls, 2);
  clock.step(120_000);
  assert.equal(await done, "written");
  assert.equal(calls, 3);
});
