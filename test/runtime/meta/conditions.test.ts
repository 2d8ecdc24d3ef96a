// Ports of k8s.io/apimachinery/pkg/api/meta/conditions_test.go (TestSetStatusCondition, TestRemoveStatusCondition,
// TestFindStatusCondition), plus the conditions third-party CRDs declare (status: string, no reason).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  type Condition,
  findStatusCondition,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
} from "@crdgen/runtime";

const oneHourBefore = "2026-01-01T10:00:00Z";
const oneHourAfter = "2026-01-01T12:00:00Z";
const now = new Date("2026-01-01T11:00:00.123Z");

function c(type: string, fields: Partial<Condition> = {}): Condition {
  return { type, status: "Unknown", lastTransitionTime: "", reason: "", message: "", ...fields };
}

test("SetStatusCondition should-add: a new type is appended with the fields given", () => {
  const conditions = [c("first"), c("third")];
  const toAdd = {
    type: "second",
    status: "True" as const,
    lastTransitionTime: oneHourBefore,
    observedGeneration: 3,
    reason: "reason",
    message: "message",
  };
  const got = setStatusCondition(conditions, toAdd, now);
  assert.deepEqual(got, [c("first"), c("third"), { ...toAdd }]);
  assert.deepEqual(conditions, [c("first"), c("third")], "the input is not modified");
});

test("SetStatusCondition use-supplied-time: a status change takes the supplied lastTransitionTime", () => {
  const conditions = [c("first"), c("second", { status: "False" }), c("third")];
  const got = setStatusCondition(
    conditions,
    {
      type: "second",
      status: "True",
      lastTransitionTime: oneHourBefore,
      observedGeneration: 3,
      reason: "reason",
      message: "message",
    },
    now,
  );
  assert.deepEqual(got[1], {
    type: "second",
    status: "True",
    lastTransitionTime: oneHourBefore,
    observedGeneration: 3,
    reason: "reason",
    message: "message",
  });
  assert.deepEqual([got[0], got[2]], [c("first"), c("third")]);
});

test("SetStatusCondition update-fields: same status keeps lastTransitionTime, other fields take the new values", () => {
  const conditions = [c("first"), c("second", { status: "True", lastTransitionTime: oneHourBefore }), c("third")];
  const got = setStatusCondition(
    conditions,
    {
      type: "second",
      status: "True",
      lastTransitionTime: oneHourAfter,
      observedGeneration: 3,
      reason: "reason",
      message: "message",
    },
    now,
  );
  assert.deepEqual(got[1], {
    type: "second",
    status: "True",
    lastTransitionTime: oneHourBefore,
    observedGeneration: 3,
    reason: "reason",
    message: "message",
  });
});

test("SetStatusCondition: a status change without a supplied time is stamped now, at second precision", () => {
  const got = setStatusCondition(
    [c("Ready", { status: "False", lastTransitionTime: oneHourBefore })],
    {
      type: "Ready",
      status: "True",
      reason: "Up",
      message: "",
    },
    now,
  );
  assert.equal(got[0]!.lastTransitionTime, "2026-01-01T11:00:00Z");
});

test("SetStatusCondition: fields absent from the new condition are cleared, as Go's zero values are", () => {
  const got = setStatusCondition(
    [c("Ready", { status: "True", observedGeneration: 7, reason: "Old" })],
    {
      type: "Ready",
      status: "True",
      reason: "New",
      message: "m",
    },
    now,
  );
  assert.equal("observedGeneration" in got[0]!, false);
  assert.equal(got[0]!.reason, "New");
});

// Conditions as many controller-gen CRDs declare them: status a plain string, reason and message optional,
// extra fields of their own.
interface ThirdPartyCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  lastUpdateTime?: string;
  reason?: string;
  message?: string;
}

test("SetStatusCondition: third-party conditions (status: string, optional reason) are accepted and kept", () => {
  const conditions: ThirdPartyCondition[] = [{ type: "Synced", status: "False", lastUpdateTime: oneHourBefore }];
  const got = setStatusCondition(conditions, { type: "Synced", status: "True" }, now);
  // Computed before deepEqual, which narrows `got` to the literal it is compared with.
  const unchanged = setStatusCondition(got, { type: "Synced", status: "True", reason: "Same" }, new Date(oneHourAfter));
  assert.deepEqual(got, [
    { type: "Synced", status: "True", lastUpdateTime: oneHourBefore, lastTransitionTime: "2026-01-01T11:00:00Z" },
  ]);
  assert.equal(unchanged[0]!.lastTransitionTime, "2026-01-01T11:00:00Z", "same status keeps the transition time");
  assert.equal(isStatusConditionTrue(unchanged, "Synced"), true);
});

test("RemoveStatusCondition: present, absent and empty", () => {
  const conditions = [c("first"), c("second"), c("third")];
  assert.deepEqual(removeStatusCondition(conditions, "second"), [c("first"), c("third")]);
  assert.deepEqual(removeStatusCondition(conditions, "fourth"), conditions);
  assert.deepEqual(removeStatusCondition(undefined, "first"), []);
  assert.equal(conditions.length, 3, "the input is not modified");
});

test("FindStatusCondition: missing, found", () => {
  const conditions = [c("first"), c("second", { status: "True" })];
  assert.equal(findStatusCondition(conditions, "third"), undefined);
  assert.deepEqual(findStatusCondition(conditions, "second"), c("second", { status: "True" }));
  assert.equal(isStatusConditionTrue(conditions, "first"), false);
  assert.equal(isStatusConditionTrue(conditions, "second"), true);
});
