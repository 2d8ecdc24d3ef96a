// Reads CustomResourceDefinitions by name from the current kubeconfig context (KUBECONFIG or ~/.kube/config),
// as named YAML texts like the file inputs, so the rest of the pipeline is the same.
import { KubeConfig } from "@kubernetes/client-node";
import { ApiError, HttpKubeClient, kubeconfigCredentialsOverHttp } from "@crdgen/runtime/client";
import { stringify } from "yaml";
import { InputError } from "../input-error.js";
import type { InputText } from "./read-inputs.js";

export interface ClusterInputOptions {
  /** CRD names (`<plural>.<group>`). */
  names: string[];
  /** A kubeconfig context other than the current one. */
  context?: string;
}

export async function readClusterInputs(options: ClusterInputOptions): Promise<InputText[]> {
  const kc = new KubeConfig();
  try {
    kc.loadFromDefault();
  } catch (error) {
    throw new InputError(
      { file: "kubeconfig" },
      `cannot load it (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (options.context !== undefined) {
    if (!kc.getContextObject(options.context))
      throw new InputError({ file: "kubeconfig" }, `no context named "${options.context}"`);
    kc.setCurrentContext(options.context);
  }
  const context = kc.getCurrentContext();
  if (!context || !kc.getCurrentCluster()) {
    throw new InputError(
      { file: "kubeconfig" },
      "no current context: set KUBECONFIG or ~/.kube/config to a kubeconfig with a current-context, or pass --context",
    );
  }
  let kube: HttpKubeClient;
  try {
    // client-node drops the cluster extensions that opt a plain http server in to receiving credentials: read them.
    kube = HttpKubeClient.fromKubeConfig(kc, { allowCredentialsOverHttp: kubeconfigCredentialsOverHttp() });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new InputError({ file: "kubeconfig" }, why.replace(/^kubeconfig:\s*/, ""));
  }
  try {
    const inputs: InputText[] = [];
    for (const name of options.names) {
      const file = `cluster ${context}: customresourcedefinitions/${name}`;
      let crd: Record<string, unknown>;
      try {
        crd = await kube.request<Record<string, unknown>>({
          method: "GET",
          path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${encodeURIComponent(name)}`,
        });
      } catch (error) {
        if (error instanceof ApiError && error.status === 404)
          throw new InputError({ file }, `context "${context}" has no CustomResourceDefinition named ${name}`);
        const why = error instanceof Error ? error.message : String(error);
        throw new InputError(
          { file },
          `cannot read CustomResourceDefinition ${name} from context "${context}" (${kube.server}): ${why}`,
        );
      }
      inputs.push({ file, text: stringify(definitionOnly(crd)) });
    }
    return inputs;
  } finally {
    kube.close();
  }
}

/** The CRD as its author wrote it: no status and no server-set metadata, so the same CRD hashes the same. */
function definitionOnly(crd: Record<string, unknown>): Record<string, unknown> {
  const metadata = (crd["metadata"] ?? {}) as Record<string, unknown>;
  return { apiVersion: crd["apiVersion"], kind: crd["kind"], metadata: { name: metadata["name"] }, spec: crd["spec"] };
}
