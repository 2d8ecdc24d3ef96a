// startControlPlane({ node: "real" }): a Pod of a locally built image is scheduled to a real kubelet + containerd
// node, runs to Ready through its exec readiness probe, and stop leaves nothing behind (leftovers.ts).
// Needs root, Debian's containerd, runc and containernetworking-plugins, and `bash controlplane/node/build.sh`;
// `npm run test:real-node` runs it (kept out of test:e2e, which runs where containers cannot).
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import type { V1Pod } from "@kubernetes/client-node";
import { isNotFound } from "@crdgen/runtime";
import { startControlPlane } from "@crdgen/runtime/envtest";
import { eventually } from "../e2e/control-plane.js";
import { ipForward, leftovers } from "./leftovers.js";

test("a Pod runs on the real node to Ready and is deleted; stop leaves nothing behind", async () => {
  assert.equal(process.getuid?.(), 0, "a real node needs root (containerd, runc, CNI, cgroups): run as root");
  const ipForwardBefore = ipForward();
  const plane = await startControlPlane({ node: "real", nodeImages: ["debian"] });
  const nodeDir = path.join(plane.dir, "node");
  const nodeName = plane.realNodeName;
  let stopped = false;
  try {
    assert.ok(nodeName, "realNodeName is set once the node is Ready");
    assert.equal(plane.fakeNodeName, undefined, "no kwok node runs beside the real one");
    const kube = plane.kubeClient();
    const pods = "/api/v1/namespaces/default/pods";
    const pod: V1Pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "real" },
      spec: {
        terminationGracePeriodSeconds: 10,
        containers: [
          {
            name: "debian",
            image: "localhost/crdgen/debian:bookworm",
            imagePullPolicy: "Never",
            command: ["/bin/bash", "-c", "trap 'exit 0' TERM; touch /tmp/ready; while :; do sleep 1 & wait $!; done"],
            readinessProbe: { exec: { command: ["test", "-f", "/tmp/ready"] }, periodSeconds: 1 },
          },
        ],
      },
    };
    await kube.request({ method: "POST", path: pods, body: pod });
    const running = await eventually(
      "the Pod Ready on the real node",
      async () => {
        const p = await kube.request<V1Pod>({ method: "GET", path: `${pods}/real` });
        const ready = p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True");
        return ready ? p : undefined;
      },
      180_000,
    );
    assert.equal(running.spec?.nodeName, nodeName, "the scheduler placed the Pod on the real node");
    assert.equal(running.status?.phase, "Running");
    assert.match(running.status.podIP ?? "", /^10\.200\.0\.\d+$/, "the Pod has an address of the node's bridge");
    assert.ok(
      existsSync(path.join(nodeDir, "containerd", "state")),
      "the node's containerd keeps its state in the node folder",
    );

    await kube.request({ method: "DELETE", path: `${pods}/real` });
    await eventually(
      "the Pod gone",
      () =>
        kube.request({ method: "GET", path: `${pods}/real` }).then(
          () => undefined,
          (error: unknown) => (isNotFound(error) ? true : undefined),
        ),
      60_000,
    );

    await plane.stop();
    stopped = true;
    assert.deepEqual(leftovers(nodeDir, nodeName, ipForwardBefore), []);
  } finally {
    if (!stopped) await plane.stop();
  }
});
