// Reads CustomResourceDefinitions by name from the current kubeconfig context (KUBECONFIG or ~/.kube/config),
// as named YAML texts like the file inputs, so the rest of the pipeline is the same.
import { ApiError, HttpKubeClient, KubeconfigError, loadKubeClient, type KubeClient } from "@crdgen/runtime/client";
import { stringify } from "yaml";
import { InputError } from "../input-error.js";
import { UserError } from "../user-error.js";
import type { InputText } from "./read-inputs.js";

export interface ClusterInputOptions {
  /** CRD names (`<plural>.<group>`). */
  names: string[];
  /** A kubeconfig context other than the current one. */
  context?: string;
}

export async function readClusterInputs(options: ClusterInputOptions): Promise<InputText[]> {
  const kube = connect(options.context);
  // loadKubeClient's client is an HttpKubeClient: its kubeconfig names the context and server in messages.
  const http = kube instanceof HttpKubeClient ? kube : undefined;
  const context = http?.kubeConfig.getCurrentContext() ?? options.context ?? "current";
  const server = http ? ` (${http.server})` : "";
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
          `cannot read CustomResourceDefinition ${name} from context "${context}"${server}: ${why}`,
        );
      }
      inputs.push({ file, text: stringify(definitionOnly(crd)) });
    }
    return inputs;
  } finally {
    kube.close();
  }
}

/**
 * The runtime's client for the kubeconfig (KUBECONFIG, else ~/.kube/config), as an operator loads it: never a silent
 * fallback to http://localhost:8080, and the kubeconfig's opt-ins for plain http honoured. Its message, on one line.
 */
function connect(context: string | undefined): KubeClient {
  try {
    return loadKubeClient(context === undefined ? {} : { context });
  } catch (error) {
    if (!(error instanceof KubeconfigError)) throw error;
    throw new UserError(error.message);
  }
}

/** The CRD as its author wrote it: no status and no server-set metadata, so the same CRD hashes the same. */
function definitionOnly(crd: Record<string, unknown>): Record<string, unknown> {
  const metadata = (crd["metadata"] ?? {}) as Record<string, unknown>;
  return { apiVersion: crd["apiVersion"], kind: crd["kind"], metadata: { name: metadata["name"] }, spec: crd["spec"] };
}
