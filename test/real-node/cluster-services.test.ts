// startControlPlane({ node: "real" }) gives pods what a cluster gives them: the API server through the `kubernetes`
// Service with their ServiceAccount token (in-cluster config), ClusterIP Services (from pods and from this process),
// cluster DNS (Services and a StatefulSet's pods behind its headless Service), and claims of the default
// StorageClass bound to folders that outlive a pod and go with their claim; stop leaves nothing behind.
// The Debian image has no HTTP or TLS client, so pods run this host's Node.js binary, mounted read-only (hostPath).
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import type {
  V1Container,
  V1PersistentVolume,
  V1PersistentVolumeClaim,
  V1Pod,
  V1Service,
} from "@kubernetes/client-node";
import { isNotFound, type KubeClient } from "@crdgen/runtime";
import { localPathStorageClass, startControlPlane } from "@crdgen/runtime/envtest";
import { eventually } from "../e2e/control-plane.js";
import { ipForward, leftovers } from "./leftovers.js";

const ns = "default";
const image = "localhost/crdgen/debian:bookworm";
const nodeMount = { name: "node", mountPath: "/crdgen/node", readOnly: true };
const nodeVolume = { name: "node", hostPath: { path: process.execPath, type: "File" } };

/** A container running `script` with the host's Node.js; what it writes to /dev/termination-log is its report. */
function nodeContainer(name: string, script: string, extra: Partial<V1Container> = {}): V1Container {
  return {
    name,
    image,
    imagePullPolicy: "Never",
    command: ["/crdgen/node", "-e", script],
    volumeMounts: [nodeMount],
    ...extra,
  };
}

/** Runs a one-shot pod to completion and returns its termination message (what it wrote to /dev/termination-log). */
async function report(kube: KubeClient, name: string, script: string): Promise<string> {
  const pod: V1Pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name },
    spec: { restartPolicy: "Never", containers: [nodeContainer(name, script)], volumes: [nodeVolume] },
  };
  await kube.request({ method: "POST", path: `/api/v1/namespaces/${ns}/pods`, body: pod });
  const done = await eventually(
    `pod ${name} terminated`,
    async () => {
      const p = await kube.request<V1Pod>({ method: "GET", path: `/api/v1/namespaces/${ns}/pods/${name}` });
      return p.status?.containerStatuses?.[0]?.state?.terminated;
    },
    120_000,
  );
  assert.equal(done.exitCode, 0, `pod ${name} failed: ${done.message ?? done.reason}`);
  return done.message ?? "";
}

/** One GET on a connection of its own. */
function httpGetOnce(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, timeout: 2_000 }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("timeout", () => req.destroy(new Error(`GET ${url}: timed out`)));
    req.on("error", reject);
  });
}

/** A pod's script: resolves each name, then writes {name: address or error} as its report. */
const resolveScript = (names: string[]) => `
const dns = require("node:dns").promises;
Promise.all(${JSON.stringify(names)}.map((n) => dns.lookup(n, 4).then((a) => a.address, (e) => "error " + e.code)))
  .then((addresses) => require("node:fs").writeFileSync("/dev/termination-log",
    JSON.stringify(Object.fromEntries(${JSON.stringify(names)}.map((n, i) => [n, addresses[i]])))));`;

// In-cluster config as client-go's rest.InClusterConfig reads it: the Service env vars, the token and the CA.
const inClusterScript = `
const fs = require("node:fs");
const sa = "/var/run/secrets/kubernetes.io/serviceaccount";
const req = require("node:https").request({
  host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT, method: "POST",
  path: "/apis/authentication.k8s.io/v1/selfsubjectreviews", ca: fs.readFileSync(sa + "/ca.crt"),
  headers: { authorization: "Bearer " + fs.readFileSync(sa + "/token", "utf8"), "content-type": "application/json" },
}, (res) => {
  let body = "";
  res.on("data", (c) => (body += c));
  res.on("end", () => fs.writeFileSync("/dev/termination-log", JSON.stringify({
    host: process.env.KUBERNETES_SERVICE_HOST, status: res.statusCode, user: JSON.parse(body).status?.userInfo?.username,
  })));
});
req.on("error", (e) => { fs.writeFileSync("/dev/termination-log", "error: " + e.message); process.exit(1); });
req.end(JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" }));`;

// Serves its hostname on 8080; ready once listening.
const webScript = `require("node:http").createServer((q, r) => r.end("hello from " + require("node:os").hostname()))
  .listen(8080); process.on("SIGTERM", () => process.exit(0));`;

test("a real node's pods get in-cluster API access, ClusterIPs, cluster DNS and local volumes", async (t) => {
  assert.equal(process.getuid?.(), 0, "a real node needs root (containerd, runc, CNI, cgroups, iptables): run as root");
  const ipForwardBefore = ipForward();
  let started = Date.now();
  const plane = await startControlPlane({ node: "real", nodeImages: ["debian"] });
  t.diagnostic(`control plane and real node started in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  const nodeDir = path.join(plane.dir, "node");
  const nodeName = plane.realNodeName ?? "";
  const kube = plane.kubeClient();
  const step = async (name: string, fn: () => Promise<void>) => {
    started = Date.now();
    await t.test(name, fn);
    t.diagnostic(`${name}: ${((Date.now() - started) / 1000).toFixed(1)}s`);
  };
  let stopped = false;
  try {
    await step(
      "a pod reaches the API server through the kubernetes Service with its ServiceAccount token",
      async () => {
        const out = JSON.parse(await report(kube, "in-cluster", inClusterScript)) as Record<string, unknown>;
        assert.deepEqual(out, { host: "10.0.0.1", status: 201, user: "system:serviceaccount:default:default" });
      },
    );

    let web: V1Service | undefined;
    const podPath = `/api/v1/namespaces/${ns}/pods/data-0`;
    let volume: V1PersistentVolume | undefined;
    let folder = "";
    await step("this process reaches a ClusterIP Service backed by a pod", async () => {
      const pod: V1Pod = {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "web", labels: { app: "web" } },
        spec: {
          terminationGracePeriodSeconds: 5,
          containers: [
            nodeContainer("web", webScript, {
              ports: [{ containerPort: 8080 }],
              readinessProbe: { httpGet: { path: "/", port: 8080 }, periodSeconds: 1 },
            }),
          ],
          volumes: [nodeVolume],
        },
      };
      await kube.request({ method: "POST", path: `/api/v1/namespaces/${ns}/pods`, body: pod });
      const service: V1Service = {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "web" },
        spec: { selector: { app: "web" }, ports: [{ port: 80, targetPort: 8080 }] },
      };
      web = await kube.request<V1Service>({ method: "POST", path: `/api/v1/namespaces/${ns}/services`, body: service });
      const clusterIP = web.spec?.clusterIP ?? "";
      assert.match(clusterIP, /^10\.0\.0\.\d+$/);
      const body = await eventually(
        `http://${clusterIP}/ answering`,
        // Until kube-proxy programs the Service its address is just off-link, and this machine's network answers
        // HTTP on any address: only the pod's answer counts, and each try is a new connection (a kept-alive one
        // stays with whoever answered first; fetch would keep it).
        () => httpGetOnce(`http://${clusterIP}/`).then((r) => (r.status === 200 ? r.body : undefined)),
        120_000,
      );
      assert.equal(body, "hello from web");
    });

    await step("StatefulSet claims of the default StorageClass bind to folders that outlive the pod", async () => {
      const headless: V1Service = {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "data-headless" },
        spec: { clusterIP: "None", selector: { app: "data" }, ports: [{ port: 8080 }] },
      };
      await kube.request({ method: "POST", path: `/api/v1/namespaces/${ns}/services`, body: headless });
      // Each start appends a line to the volume: two lines after a restart mean the data survived it.
      const statefulSet = {
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        metadata: { name: "data" },
        spec: {
          serviceName: "data-headless",
          replicas: 1,
          selector: { matchLabels: { app: "data" } },
          template: {
            metadata: { labels: { app: "data" } },
            spec: {
              terminationGracePeriodSeconds: 1,
              containers: [
                {
                  name: "data",
                  image,
                  imagePullPolicy: "Never",
                  command: ["/bin/bash", "-c", 'echo "start $(date +%s%N)" >>/data/starts; exec sleep infinity'],
                  readinessProbe: { exec: { command: ["test", "-s", "/data/starts"] }, periodSeconds: 1 },
                  volumeMounts: [{ name: "data", mountPath: "/data" }],
                },
              ],
            },
          },
          volumeClaimTemplates: [
            {
              metadata: { name: "data" },
              spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "16Mi" } } },
            },
          ],
        },
      };
      await kube.request({ method: "POST", path: `/apis/apps/v1/namespaces/${ns}/statefulsets`, body: statefulSet });
      const ready = (p: V1Pod) => p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True");
      const first = await eventually(
        "data-0 Ready",
        async () => {
          const p = await kube.request<V1Pod>({ method: "GET", path: podPath });
          return ready(p) ? p : undefined;
        },
        120_000,
      );
      const claim = await kube.request<V1PersistentVolumeClaim>({
        method: "GET",
        path: `/api/v1/namespaces/${ns}/persistentvolumeclaims/data-data-0`,
      });
      assert.equal(claim.spec?.storageClassName, localPathStorageClass, "the default StorageClass was applied");
      assert.equal(claim.status?.phase, "Bound");
      volume = await kube.request<V1PersistentVolume>({
        method: "GET",
        path: `/api/v1/persistentvolumes/${claim.spec.volumeName}`,
      });
      folder = volume.spec?.hostPath?.path ?? "";
      assert.equal(path.dirname(folder), path.join(nodeDir, "volumes"), "the volume is a folder of the node's folder");
      assert.equal(readFileSync(path.join(folder, "starts"), "utf8").split("\n").filter(Boolean).length, 1);

      await kube.request({ method: "DELETE", path: podPath });
      await eventually(
        "data-0 recreated and Ready",
        async () => {
          const p = await kube.request<V1Pod>({ method: "GET", path: podPath });
          return p.metadata?.uid !== first.metadata?.uid && ready(p) ? p : undefined;
        },
        120_000,
      );
      const starts = readFileSync(path.join(folder, "starts"), "utf8").split("\n").filter(Boolean);
      assert.equal(starts.length, 2, `the recreated pod found the first one's data: ${starts.join(" | ")}`);
    });

    await step(
      "cluster DNS resolves Services, the kubernetes Service and a StatefulSet pod by its headless name",
      async () => {
        const dataIP = (await kube.request<V1Pod>({ method: "GET", path: podPath })).status?.podIP;
        const names = [
          "kubernetes.default.svc.cluster.local",
          "web.default.svc.cluster.local",
          "web",
          "data-0.data-headless",
          "data-0.data-headless.default.svc.cluster.local",
          "missing.default.svc.cluster.local",
        ];
        const out = JSON.parse(await report(kube, "dns", resolveScript(names))) as Record<string, string>;
        assert.deepEqual(out, {
          "kubernetes.default.svc.cluster.local": "10.0.0.1",
          "web.default.svc.cluster.local": web?.spec?.clusterIP,
          web: web?.spec?.clusterIP,
          "data-0.data-headless": dataIP,
          "data-0.data-headless.default.svc.cluster.local": dataIP,
          "missing.default.svc.cluster.local": "error ENOTFOUND",
        });
      },
    );

    await step("deleting the claim removes its volume and the volume's folder", async () => {
      await kube.request({ method: "DELETE", path: `/apis/apps/v1/namespaces/${ns}/statefulsets/data` });
      await eventually(
        "data-0 gone",
        () =>
          kube.request({ method: "GET", path: podPath }).then(
            () => undefined,
            (error: unknown) => (isNotFound(error) ? true : undefined),
          ),
        60_000,
      );
      await kube.request({ method: "DELETE", path: `/api/v1/namespaces/${ns}/persistentvolumeclaims/data-data-0` });
      await eventually(
        "the released volume and its folder removed",
        () =>
          kube.request({ method: "GET", path: `/api/v1/persistentvolumes/${volume?.metadata?.name}` }).then(
            () => undefined,
            (error: unknown) => (isNotFound(error) && !existsSync(folder) ? true : undefined),
          ),
        60_000,
      );
    });

    started = Date.now();
    await plane.stop();
    stopped = true;
    t.diagnostic(`stopped in ${((Date.now() - started) / 1000).toFixed(1)}s`);
    assert.deepEqual(leftovers(nodeDir, nodeName, ipForwardBefore), []);
  } finally {
    if (!stopped) await plane.stop();
  }
});
