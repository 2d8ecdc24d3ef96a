// Runs crdgen's local control plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok) for the
// node scripts, until SIGTERM or SIGINT:
//   node controlplane/node/control-plane.mjs <info.json>
// Writes { dir, kubeconfigPath, apiServerUrl } to <info.json> once the control plane is ready.
// Needs `npm run build` (it uses runtime/dist) and `npm run controlplane:build`.
import { rename, writeFile } from "node:fs/promises";
import { startControlPlane } from "@crdgen/runtime/envtest";

const infoFile = process.argv[2];
if (!infoFile) {
  console.error("usage: node controlplane/node/control-plane.mjs <info.json>");
  process.exit(2);
}
const plane = await startControlPlane({ controllers: true });
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await plane.stop();
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
const info = { dir: plane.dir, kubeconfigPath: plane.kubeconfigPath, apiServerUrl: plane.apiServerUrl };
await writeFile(`${infoFile}.tmp`, JSON.stringify(info));
await rename(`${infoFile}.tmp`, infoFile);
setInterval(() => undefined, 1 << 30); // keep running until a signal
