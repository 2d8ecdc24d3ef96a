// The TypeScript operator libraries' types and factories explore knows, by the module that exports them and the name
// it exports them under: a value is a queue, an informer or a watch when its type (or the function that made it)
// resolves to one of these, whatever the operator calls it.
import type { TypeRef } from "./types.js";

export const CLIENT_NODE = "@kubernetes/client-node";
export const CRDGEN_RUNTIME = "@crdgen/runtime";
export const K8S_OPERATOR_NODE = "@dot-i/k8s-operator";
export const PEPR = "pepr";
export const FLUENT_CLIENT = "kubernetes-fluent-client";

/** A type or factory of a library: `makeInformer()` is what makeInformer returns, `Informer` the type itself. */
interface Known {
  module: string;
  names: Set<string>;
}

const known = (module: string, ...names: string[]): Known => ({ module, names: new Set(names) });

/** @crdgen/runtime's workqueues (client-go's, in TypeScript) and their constructors. */
const WORKQUEUES = [
  known(
    CRDGEN_RUNTIME,
    "Queue",
    "DelayingQueue",
    "RateLimitingQueue",
    "PriorityQueue",
    "newQueue()",
    "newDelayingQueue()",
    "newRateLimitingQueue()",
    "newPriorityQueue()",
  ),
];
/** Informers whose handlers are added with on() (client-node) or addEventHandler (crdgen's runtime). */
const INFORMERS = [
  known(CLIENT_NODE, "Informer", "ListWatch", "makeInformer()"),
  known(CRDGEN_RUNTIME, "SharedIndexInformer", "SharedInformer", "Informer"),
];
const WATCHES = [known(CLIENT_NODE, "Watch")];
/** k8s-operator-node's base class, whose watchResource(group, version, plural, onEvent) subscribes a callback. */
const OPERATOR_BASES = [known(K8S_OPERATOR_NODE, "default", "Operator")];
const PEPR_CAPABILITIES = [known(PEPR, "Capability")];
/** kubernetes-fluent-client's K8s(Kind) (Pepr re-exports it). */
const FLUENT_K8S = [known(FLUENT_CLIENT, "K8s()", "K8s"), known(PEPR, "K8s()", "K8s")];

function matches(refs: TypeRef[], list: Known[]): TypeRef | undefined {
  return refs.find((r) =>
    list.some((k) => (r.module === k.module || r.module.startsWith(`${k.module}/`)) && k.names.has(r.name)),
  );
}

export const isWorkqueue = (refs: TypeRef[]) => matches(refs, WORKQUEUES);
export const isInformer = (refs: TypeRef[]) => matches(refs, INFORMERS);
export const isWatch = (refs: TypeRef[]) => matches(refs, WATCHES);
export const isOperatorNodeBase = (refs: TypeRef[]) => matches(refs, OPERATOR_BASES);
export const isPeprCapability = (refs: TypeRef[]) => matches(refs, PEPR_CAPABILITIES);
export const isFluentK8s = (refs: TypeRef[]) => matches(refs, FLUENT_K8S);

/** The packages whose own code implements these types: their queue internals are not an operator's flow. */
export const LIBRARY_MODULES = new Set([CLIENT_NODE, CRDGEN_RUNTIME, K8S_OPERATOR_NODE, PEPR, FLUENT_CLIENT]);

/**
 * The kind a resource type names: client-node's models (`V1Pod`, `V1beta1CronJob`, `k8s.V1Secret`) drop their version,
 * a type of the operator's own (`Widget`) is its kind; a type parameter or KubernetesObject is known at run time only.
 */
export function kindOfTypeArgument(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const name = text
    .replace(/^import\([^)]*\)\./, "")
    .replace(/<.*$/, "")
    .split(".")
    .at(-1)!
    .trim();
  const model = /^V\d+(?:(?:alpha|beta)\d+)?([A-Z]\w*)$/.exec(name);
  if (model) return model[1];
  if (/^(KubernetesObject|[A-Z]|any|unknown|object)$/.test(name) || !/^[A-Z]\w*$/.test(name))
    return "(kind set at run time)";
  return name;
}
