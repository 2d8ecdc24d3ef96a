// The local control plane itself: it starts, serves the installed CRD, survives an apiserver restart, and leaves no
// process behind.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import path from "node:path";
import { startControlPlane } from "@crdgen/runtime/envtest";
import { repoRoot } from "./control-plane.js";

const crdFile = path.join(repoRoot, "samples/mysql/crd.yaml");

/** PIDs of running processes whose command line mentions `needle` (from ps, so the test sees what the OS sees). */
function pidsMatching(needle: string): number[] {
  const out = execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" });
  return out
    .split("\n")
    .filter((l) => l.includes(needle) && !l.includes("ps -eo"))
    .map((l) => Number(l.trim().split(/\s+/)[0]));
}

test("start serves the installed CRD's version in discovery, keeps objects across an apiserver restart, and stop ends both processes", async () => {
  const plane = await startControlPlane({ crdFiles: [crdFile] });
  const kube = plane.kubeClient();
  try {
    const discovery = await kube.request<{ resources: Array<{ name: string }> }>({
      method: "GET",
      path: "/apis/example.com/v1",
    });
    assert.ok(discovery.resources.some((r) => r.name === "mysqlclusters"));
    await kube.request({
      method: "POST",
      path: "/api/v1/namespaces/default/configmaps",
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "kept" }, data: { a: "1" } },
    });
    await plane.restartApiServer();
    const kept = await plane
      .kubeClient()
      .request<{ data: Record<string, string> }>({ method: "GET", path: "/api/v1/namespaces/default/configmaps/kept" });
    assert.deepEqual(kept.data, { a: "1" }, "etcd kept the object while the apiserver restarted");
    assert.match(plane.etcdEndpoint, /^http:\/\/127\.0\.0\.1:\d+$/);
  } finally {
    await plane.stop();
  }
  assert.deepEqual(pidsMatching(plane.dir), [], "no etcd or kube-apiserver of this control plane is left running");
});

test("a test process killed with SIGKILL leaves no control plane process behind", async () => {
  const script = `
    import { startControlPlane } from "@crdgen/runtime/envtest";
    const plane = await startControlPlane({});
    process.stdout.write(plane.dir + "\\n");
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const dir = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve(out.trim());
    });
    child.once("exit", (code) => reject(new Error(`the child exited (${code}) before the control plane was up`)));
  });
  assert.ok(pidsMatching(dir).length >= 2, "etcd and kube-apiserver run while the test process lives");
  child.kill("SIGKILL");
  const deadline = Date.now() + 30_000;
  while (pidsMatching(dir).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
  assert.deepEqual(pidsMatching(dir), [], "the watchdog stopped etcd and kube-apiserver after their parent died");
});
