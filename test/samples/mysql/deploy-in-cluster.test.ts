// inClusterManifests (samples/mysql/tools/deploy-in-cluster.ts): samples/mysql/deploy/ as committed, made to run
// without cert-manager: the serving pair in the Deployment's Secret, its CA in every caBundle, the operator image and
// replicas.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { V1CustomResourceDefinition, V1Deployment, V1Secret } from "@kubernetes/client-node";
import {
  committedDeployDocs,
  inClusterManifests,
  webhookHosts,
} from "../../../samples/mysql/tools/deploy-in-cluster.js";
import { deployment } from "../../../samples/mysql/tools/deploy-manifests.js";

const pair = { tlsCrt: "CERT", tlsKey: "KEY", caCrt: "CA PEM" };
const caBundle = Buffer.from("CA PEM").toString("base64");

test("cert-manager's objects and annotations are gone; the Secret the Deployment mounts holds the pair, after the namespaces", async () => {
  const docs = await committedDeployDocs();
  assert.ok(
    docs.some((d) => d.apiVersion?.startsWith("cert-manager.io/")),
    "the committed manifests use cert-manager",
  );
  const out = inClusterManifests(docs, { image: "localhost/crdgen/mysql-operator:0.1.0", replicas: 2 }, pair);
  assert.deepEqual(
    out.filter((d) => d.apiVersion?.startsWith("cert-manager.io/")),
    [],
  );
  assert.ok(out.every((d) => !d.metadata?.annotations?.["cert-manager.io/inject-ca-from"]));
  const secretAt = out.findIndex((d) => d.kind === "Secret");
  const secret = out[secretAt] as V1Secret;
  const dep = out.find((d) => d.kind === "Deployment") as V1Deployment;
  const mounted = dep.spec?.template.spec?.volumes?.find((v) => v.secret)?.secret?.secretName;
  assert.equal(secret.metadata?.name, mounted);
  assert.equal(secret.metadata?.namespace, deployment.namespace);
  assert.equal(secret.type, "kubernetes.io/tls");
  assert.deepEqual(secret.data, {
    "tls.crt": Buffer.from("CERT").toString("base64"),
    "tls.key": Buffer.from("KEY").toString("base64"),
    "ca.crt": caBundle,
  });
  assert.ok(
    out.slice(0, secretAt).every((d) => d.kind === "Namespace") && out[secretAt - 1]?.kind === "Namespace",
    "created once its namespace exists, before the Deployment",
  );
  assert.equal(docs.length - out.length, 2 - 1, "the Issuer and Certificate out, the Secret in");
});

test("every webhook and the CRD's conversion webhook carry the CA; the Deployment runs the image, never pulled, with replicas", async () => {
  const docs = await committedDeployDocs();
  const out = inClusterManifests(docs, { image: "localhost/crdgen/mysql-operator:0.1.0", replicas: 2 }, pair);
  const hooks = out
    .filter((d) => d.kind === "MutatingWebhookConfiguration" || d.kind === "ValidatingWebhookConfiguration")
    .flatMap((d) => d["webhooks"] as { clientConfig: { caBundle?: string } }[]);
  assert.ok(hooks.length >= 2);
  assert.ok(hooks.every((h) => h.clientConfig.caBundle === caBundle));
  const crd = out.find((d) => d.kind === "CustomResourceDefinition") as unknown as V1CustomResourceDefinition;
  assert.equal(crd.spec.conversion?.webhook?.clientConfig?.caBundle, caBundle);
  const dep = out.find((d) => d.kind === "Deployment") as V1Deployment;
  assert.equal(dep.spec?.replicas, 2);
  const manager = dep.spec.template.spec?.containers.at(0);
  assert.equal(manager?.image, "localhost/crdgen/mysql-operator:0.1.0");
  assert.equal(manager.imagePullPolicy, "Never");
  assert.ok(manager.args?.includes("--leader-elect"), "two replicas elect a leader");
  const committed = docs.find((d) => d.kind === "Deployment") as V1Deployment;
  assert.equal(committed.spec?.replicas, 1, "the committed documents are left as they are");
});

test("the serving certificate names the webhook Service the configurations call", async () => {
  const docs = await committedDeployDocs();
  const services = docs
    .filter((d) => d.kind === "ValidatingWebhookConfiguration")
    .flatMap((d) => d["webhooks"] as { clientConfig: { service: { name: string; namespace: string } } }[])
    .map((h) => `${h.clientConfig.service.name}.${h.clientConfig.service.namespace}.svc`);
  assert.ok(services.length > 0);
  for (const host of services) assert.ok(webhookHosts().includes(host), `${host} is named`);
});
