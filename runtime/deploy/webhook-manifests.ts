// With webhooks: a cert-manager Issuer and Certificate for the webhook Service, the webhook configurations, and the
// CRDs' conversion stanza; cert-manager's cainjector fills in every caBundle from the Certificate.
import type { KubernetesObject } from "../client/types.js";
import { crdConversionFor, webhookConfigurationsFor, type WebhookClientConfig } from "../webhook/configuration.js";
import type { DeployNames, DeployOptions } from "./options.js";

const clientConfig =
  (names: DeployNames) =>
  (path: string): WebhookClientConfig => ({
    service: { name: names.webhookService, namespace: names.namespace, path, port: 443 },
  });

const injectCaFrom = (names: DeployNames) => ({
  "cert-manager.io/inject-ca-from": `${names.namespace}/${names.webhookCertificate}`,
});

export function certificate(names: DeployNames): Array<KubernetesObject & { spec: object }> {
  const { name, namespace, labels } = names;
  const host = `${names.webhookService}.${namespace}.svc`;
  return [
    {
      apiVersion: "cert-manager.io/v1",
      kind: "Issuer",
      metadata: { name: `${name}-selfsigned`, namespace, labels },
      spec: { selfSigned: {} },
    },
    {
      apiVersion: "cert-manager.io/v1",
      kind: "Certificate",
      metadata: { name: names.webhookCertificate, namespace, labels },
      spec: {
        dnsNames: [host, `${host}.cluster.local`],
        issuerRef: { kind: "Issuer", name: `${name}-selfsigned` },
        secretName: names.webhookCertSecret,
      },
    },
  ];
}

/** failurePolicy Fail (no object is written unchecked while the operator is down), sideEffects None, 10 s. */
export function webhookConfigurations(names: DeployNames, options: DeployOptions): KubernetesObject[] {
  const namespaces = options.watchNamespaces ?? [];
  return webhookConfigurationsFor(options.webhooks ?? [], {
    name: names.name,
    clientConfig: clientConfig(names),
    failurePolicy: "Fail",
    sideEffects: "None",
    timeoutSeconds: 10,
    ...(namespaces.length > 0
      ? {
          namespaceSelector: {
            matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values: [...namespaces] }],
          },
        }
      : {}),
    annotations: injectCaFrom(names),
  });
}

interface CrdSpec {
  group?: string;
  names?: { plural?: string };
  conversion?: unknown;
}

/** The CRDs, each served by a conversion webhook pointed at it (strategy Webhook) with the CA injected. */
export function crdsWithConversion(names: DeployNames, options: DeployOptions): KubernetesObject[] {
  const conversions = (options.webhooks ?? []).filter((w) => w.type === "conversion");
  return options.crds.map((crd) => {
    const spec = (crd as { spec?: CrdSpec }).spec;
    const conversion = conversions.find(
      (w) => w.resource.group === spec?.group && w.resource.plural === spec.names?.plural,
    );
    if (!conversion) return crd;
    const out = structuredClone(crd) as KubernetesObject & { spec: CrdSpec };
    out.metadata ??= {};
    out.metadata.annotations = { ...out.metadata.annotations, ...injectCaFrom(names) };
    out.spec.conversion = crdConversionFor(clientConfig(names)(conversion.path));
    return out;
  });
}
