// Server-side apply of manifests with the runtime's own client (kubectl apply --server-side, without kubectl): each
// object's resource is found by discovery (its plural and scope), then applied with field manager "crdgen".
import { isNotFound } from "../client/api-error.js";
import type { KubeClient } from "../client/kube-client.js";
import { ResourceClient } from "../client/resource-client.js";
import type { KubernetesObject, ResourceDescriptor } from "../client/types.js";
import { pollUntil } from "../wait/poll-until.js";
import { DeployError } from "./rbac-manifests.js";

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

export interface ApplyOptions {
  /** Default "crdgen". */
  fieldManager?: string;
  /** Told of each object once applied, e.g. to print `Deployment/my-operator serverside-applied` as kubectl does. */
  onApplied?: (obj: KubernetesObject) => void;
  /** How long a CRD may take to be Established before the apply fails. Default 60 s. */
  establishedTimeoutMs?: number;
}

/** Finds a kind's resource by discovery (GET /api/v1, /apis/<group>/<version>), one request per group version. */
export class Discovery {
  private readonly lists = new Map<string, Promise<ApiResource[]>>();

  constructor(private readonly kube: KubeClient) {}

  async resourceFor(apiVersion: string, kind: string): Promise<ResourceDescriptor> {
    const [group, version] = apiVersion.includes("/") ? apiVersion.split("/", 2) : ["", apiVersion];
    let list = this.lists.get(apiVersion);
    if (!list) {
      const path = group ? `/apis/${group}/${version}` : `/api/${version}`;
      list = this.kube.request<{ resources: ApiResource[] }>({ method: "GET", path }).then(
        (r) => r.resources,
        (error: unknown) => {
          if (!isNotFound(error)) throw error;
          // cert-manager's kinds, for the webhooks' certificate, are the usual case.
          const hint = group === "cert-manager.io" ? ": install cert-manager first" : "";
          throw new DeployError(`the API server does not serve ${apiVersion}${hint}`, { cause: error });
        },
      );
      this.lists.set(apiVersion, list);
    }
    const found = (await list).find((r) => r.kind === kind && !r.name.includes("/"));
    if (!found) throw new DeployError(`the API server serves no kind ${kind} in ${apiVersion}`);
    return { group: group!, version: version!, plural: found.name, kind, namespaced: found.namespaced };
  }
}

/**
 * Applies objects in order (force: this field manager takes over fields another manager set, as `kubectl apply
 * --server-side --force-conflicts`). A discovery failure for a kind (e.g. cert-manager's, when it is not installed)
 * fails with the kind's name.
 */
export async function applyManifests(
  kube: KubeClient,
  objects: readonly KubernetesObject[],
  options: ApplyOptions = {},
): Promise<void> {
  const discovery = new Discovery(kube);
  for (const obj of objects) {
    const { apiVersion, kind, metadata } = obj;
    if (!apiVersion || !kind || !metadata?.name) throw new DeployError(`an object lacks apiVersion, kind or name`);
    const resource = await discovery.resourceFor(apiVersion, kind).catch((error: unknown) => {
      throw new DeployError(`cannot apply ${kind}/${metadata.name}: ${(error as Error).message}`, { cause: error });
    });
    if (resource.namespaced && !metadata.namespace)
      throw new DeployError(`${kind}/${metadata.name} is namespaced but names no namespace`);
    await new ResourceClient(kube, resource).patch(
      resource.namespaced ? metadata.namespace : undefined,
      metadata.name,
      {
        type: "apply",
        body: obj as never,
        fieldManager: options.fieldManager ?? "crdgen",
        force: true,
      },
    );
    if (kind === "CustomResourceDefinition")
      await established(new ResourceClient(kube, resource), metadata.name, options.establishedTimeoutMs ?? 60_000);
    options.onApplied?.(obj);
  }
}

/**
 * Waits for a CRD's Established condition (kubectl wait --for=condition=Established): until then its kind is not
 * served, so an operator started right after `install` would fail its first LIST.
 */
async function established(crds: ResourceClient<KubernetesObject>, name: string, timeoutMs: number): Promise<void> {
  type Crd = KubernetesObject & { status?: { conditions?: Array<{ type: string; status: string }> } };
  await pollUntil(
    async () => {
      const crd = (await crds.get(undefined, name)) as Crd;
      return crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True");
    },
    { intervalMs: 200, timeoutMs, what: `CustomResourceDefinition ${name} to be Established` },
  );
}

/**
 * Deletes objects in reverse order (kubebuilder's make undeploy / uninstall); one already gone is fine. Told of each
 * object once its delete is accepted (finalizers, e.g. of a namespace, may keep it a while).
 */
export async function deleteManifests(
  kube: KubeClient,
  objects: readonly KubernetesObject[],
  onDeleted?: (obj: KubernetesObject) => void,
): Promise<void> {
  const discovery = new Discovery(kube);
  for (const obj of [...objects].reverse()) {
    // A kind the server no longer serves (its CRD deleted before it) has no objects left to delete; any other
    // discovery failure (forbidden, unreachable) fails the delete, so undeploy does not report success.
    const resource = await discovery.resourceFor(obj.apiVersion!, obj.kind!).catch((error: unknown) => {
      if (error instanceof DeployError) return undefined;
      throw error;
    });
    if (!resource) continue;
    const namespace = resource.namespaced ? obj.metadata?.namespace : undefined;
    try {
      await new ResourceClient(kube, resource).delete(namespace, obj.metadata!.name!, {
        propagationPolicy: "Background",
      });
      onDeleted?.(obj);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}
