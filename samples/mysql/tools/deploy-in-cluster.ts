// Deploys the operator in-cluster from samples/mysql/deploy/ where cert-manager is absent (the local control plane
// with a real node): the operator image built by controlplane/node/images.sh, N replicas with leader election, and
// the webhook serving certificate made here (envtest's makeWebhookCertificates, for the webhook Service's names)
// into the Secret the Deployment mounts, its CA patched into every caBundle that cert-manager's cainjector would fill.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseAllDocuments, stringify } from "yaml";
import type { KubernetesObject } from "@crdgen/runtime";
import { findBinary, makeWebhookCertificates } from "@crdgen/runtime/envtest";
import { deployDir, deployment } from "./deploy-manifests.js";

/** What the webhook serving pair and its CA look like once made. */
export interface ServingPair {
  tlsCrt: string;
  tlsKey: string;
  caCrt: string;
}

export interface InClusterOptions {
  /** The operator image, e.g. localhost/crdgen/mysql-operator:0.1.0 (never pulled: there is no registry). */
  image: string;
  /** Operator pods; more than one exercises leader election (or, from deploy-sharded/, sharding). */
  replicas: number;
  /** The manifests' folder: samples/mysql/deploy/ (default) or deploy-sharded/. */
  dir?: string;
}

type Doc = KubernetesObject & Record<string, unknown>;

/** Every document of samples/mysql/deploy/ (or `root`) and its webhooks/, in file order. */
export async function committedDeployDocs(root = deployDir): Promise<Doc[]> {
  const docs: Doc[] = [];
  for (const dir of [root, path.join(root, "webhooks")]) {
    for (const file of (await readdir(dir)).filter((f) => f.endsWith(".yaml")).sort()) {
      for (const doc of parseAllDocuments(await readFile(path.join(dir, file), "utf8"))) {
        if (doc.errors.length > 0) throw new Error(`${path.join(dir, file)}: ${doc.errors[0]!.message}`);
        const value = doc.toJS() as Doc | null;
        if (value) docs.push(value);
      }
    }
  }
  return docs;
}

/** The webhook Service's DNS names: what the API server connects to, so what the serving certificate must name. */
export function webhookHosts(): string[] {
  const host = `${deployment.webhookService}.${deployment.namespace}.svc`;
  return [host, `${host}.cluster.local`];
}

const isCertManager = (doc: Doc) => doc.apiVersion?.startsWith("cert-manager.io/") ?? false;

/**
 * The manifests to apply: cert-manager's objects dropped, a kubernetes.io/tls Secret with the serving pair added
 * right after the namespaces, caBundle set in every webhook and in the CRD's conversion webhook (and the
 * inject-ca-from annotations gone), and the Deployment running `image` (pull policy Never) with `replicas`.
 */
export function inClusterManifests(docs: Doc[], options: InClusterOptions, pair: ServingPair): Doc[] {
  const caBundle = Buffer.from(pair.caCrt).toString("base64");
  const out = docs.filter((d) => !isCertManager(d)).map((d) => structuredClone(d));
  for (const doc of out) injectCaBundle(doc, caBundle);
  const deployments = out.filter((d) => d.kind === "Deployment" && d.metadata?.name === deployment.name);
  if (deployments.length !== 1)
    throw new Error(`samples/mysql/deploy/ has ${deployments.length} Deployments named ${deployment.name}, expected 1`);
  runLocalImage(deployments[0]!, options);
  const afterNamespaces = out.filter((d) => d.kind === "Namespace").length;
  out.splice(afterNamespaces, 0, servingSecret(pair));
  return out;
}

/** The Secret the Deployment mounts, as cert-manager would have written it. */
function servingSecret(pair: ServingPair): Doc {
  const b64 = (text: string) => Buffer.from(text).toString("base64");
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: deployment.webhookCertSecret, namespace: deployment.namespace },
    type: "kubernetes.io/tls",
    data: { "tls.crt": b64(pair.tlsCrt), "tls.key": b64(pair.tlsKey), "ca.crt": b64(pair.caCrt) },
  };
}

/** What cert-manager's CA injector does: caBundle in each webhook's and the CRD conversion's clientConfig. */
function injectCaBundle(doc: Doc, caBundle: string): void {
  const annotations = doc.metadata?.annotations;
  if (annotations) delete annotations["cert-manager.io/inject-ca-from"];
  if (doc.kind === "MutatingWebhookConfiguration" || doc.kind === "ValidatingWebhookConfiguration") {
    for (const hook of (doc["webhooks"] ?? []) as { clientConfig: Record<string, unknown> }[])
      hook.clientConfig["caBundle"] = caBundle;
  }
  if (doc.kind === "CustomResourceDefinition") {
    const spec = doc["spec"] as { conversion?: { webhook?: { clientConfig?: Record<string, unknown> } } };
    if (spec.conversion?.webhook?.clientConfig) spec.conversion.webhook.clientConfig["caBundle"] = caBundle;
  }
}

/** The operator's Deployment with `replicas`, running `image` from the node's own store (pull policy Never). */
function runLocalImage(operator: Doc, options: InClusterOptions): void {
  const spec = operator["spec"] as {
    replicas: number;
    template: { spec: { containers: { name: string; image: string; imagePullPolicy: string }[] } };
  };
  spec.replicas = options.replicas;
  for (const container of spec.template.spec.containers) {
    container.image = options.image;
    container.imagePullPolicy = "Never";
  }
}

/** Runs kubectl with the manifests on stdin; rejects with kubectl's own message. */
function kubectlApply(kubeconfigPath: string, docs: Doc[]): Promise<string> {
  const input = docs.map((d) => stringify(d)).join("---\n");
  return new Promise((resolve, reject) => {
    const child = execFile(
      findBinary("kubectl"),
      [
        "--kubeconfig",
        kubeconfigPath,
        "apply",
        "--server-side",
        "--force-conflicts",
        "--field-manager=crdgen-deploy",
        "-f",
        "-",
      ],
      { maxBuffer: 8 * 1024 * 1024 },
      (error, stdout, stderr) =>
        error
          ? reject(new Error(`kubectl apply of samples/mysql/deploy failed: ${stderr || error.message}`))
          : resolve(stdout),
    );
    child.stdin?.end(input);
  });
}

/**
 * Applies samples/mysql/deploy/ in-cluster without cert-manager (see inClusterManifests) and returns what it applied.
 * The caller waits for the Deployment to become available (its pods need the node to have the image).
 */
export async function deployInCluster(kubeconfigPath: string, options: InClusterOptions): Promise<Doc[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "crdgen-webhook-serving-"));
  try {
    const certs = await makeWebhookCertificates(dir, { hosts: webhookHosts() });
    const pair: ServingPair = {
      tlsCrt: await readFile(path.join(dir, "tls.crt"), "utf8"),
      tlsKey: await readFile(path.join(dir, "tls.key"), "utf8"),
      caCrt: certs.caCert,
    };
    const docs = inClusterManifests(await committedDeployDocs(options.dir), options, pair);
    await kubectlApply(kubeconfigPath, docs);
    return docs;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
