// The shapes of TypeScript operator libraries, recognised in the syntax (which library a name is, by type:
// typed-shapes.ts): @kubernetes/client-node's raw
// `watch.watch(path, query, callback, done)` and `new ListWatch(path, ...)`, kubernetes-fluent-client's
// `K8s(Kind).Watch(callback)`, and Pepr's `When(Kind).IsCreatedOrUpdated()...Reconcile(callback)`.
import { type CallExpression, Node } from "ts-morph";
import { singularKind } from "../facts.js";
import { capitalize } from "./syntax.js";

/** Pepr's actions: what the callback given to each is for. */
export const PEPR_ACTIONS = new Set(["Reconcile", "Watch", "Mutate", "Validate", "Finalize"]);
const PEPR_EVENTS: Record<string, string[]> = {
  IsCreated: ["add"],
  IsUpdated: ["update"],
  IsDeleted: ["delete"],
  IsCreatedOrUpdated: ["add", "update"],
};
/** client-node's event name constants (`k8s.ADD`) and the names they stand for. */
const CLIENT_NODE_EVENT_CONSTANTS: Record<string, string> = {
  ADD: "add",
  UPDATE: "update",
  CHANGE: "change",
  DELETE: "delete",
  ERROR: "error",
  CONNECT: "connect",
};

/** A call chain `Root(args).A().B(x).Method(...)`: the root call, its name, and the method names in between. */
export interface Chain {
  root: CallExpression;
  rootName: string;
  /** Methods called between the root and the last call, in order (`IsCreatedOrUpdated`, `InNamespace`, ...). */
  between: string[];
}

export function chainOf(call: CallExpression): Chain | undefined {
  const callee = call.getExpression();
  if (!Node.isPropertyAccessExpression(callee)) return undefined;
  const between: string[] = [];
  let e: Node = callee.getExpression();
  for (let depth = 0; depth < 32 && Node.isCallExpression(e); depth++) {
    const inner = e.getExpression();
    if (Node.isIdentifier(inner)) return { root: e, rootName: inner.getText(), between };
    if (!Node.isPropertyAccessExpression(inner)) return undefined;
    // `capability.When(a.Pod)`: a method of a value that is not itself a call is the root.
    if (!Node.isCallExpression(inner.getExpression())) return { root: e, rootName: inner.getName(), between };
    between.unshift(inner.getName());
    e = inner.getExpression();
  }
  return undefined;
}

/** Pepr's binding: `When(Kind)` then an Is...() event and filters, ending in an action with the callback. */
export function peprBinding(
  call: CallExpression,
  method: string,
  isWhen: (root: CallExpression) => boolean,
): { kind: string; events: string[]; text: string; root: Node; callback: Node } | undefined {
  if (!PEPR_ACTIONS.has(method)) return undefined;
  const chain = chainOf(call);
  if (!chain || !isWhen(chain.root)) return undefined;
  const callback = call.getArguments()[0];
  if (!callback) return undefined;
  const event = chain.between.find((m) => PEPR_EVENTS[m]);
  const [model, gvk] = chain.root.getArguments();
  const keyedKind = gvk && Node.isObjectLiteralExpression(gvk) ? gvk.getProperty("kind") : undefined;
  const kindText =
    keyedKind && Node.isPropertyAssignment(keyedKind)
      ? keyedKind.getInitializer()?.getText().replace(/["'`]/g, "")
      : undefined;
  const eventCall = event ? `.${event}()` : "";
  return {
    kind: kindText ?? kindOfModel(model),
    events: event ? PEPR_EVENTS[event]! : ["add", "update", "delete"],
    text: `When(${model?.getText() ?? ""})${eventCall}`,
    root: chain.root,
    callback,
  };
}

/** kubernetes-fluent-client's `K8s(Kind, filters?)...Watch(callback)`: the kind watched. */
export function fluentWatchKind(
  call: CallExpression,
  method: string,
  isK8s: (root: CallExpression) => boolean,
): string | undefined {
  if (method !== "Watch") return undefined;
  const chain = chainOf(call);
  if (!chain || !call.getArguments()[0] || !isK8s(chain.root)) return undefined;
  return kindOfModel(chain.root.getArguments()[0]);
}

/** `a.ConfigMap`, `kind.Pod` or a class of the operator's own (`WebApp`): the kind is the model's name. */
function kindOfModel(model: Node | undefined): string {
  if (model && Node.isPropertyAccessExpression(model)) return model.getName();
  if (model && Node.isIdentifier(model)) return model.getText();
  return "?";
}

/** Built-in kinds whose plural does not show where the words meet (`configmaps` is ConfigMap, not Configmap). */
const BUILTIN_KINDS = new Map(
  [
    "APIService",
    "CertificateSigningRequest",
    "ClusterRole",
    "ClusterRoleBinding",
    "ConfigMap",
    "ControllerRevision",
    "CronJob",
    "CustomResourceDefinition",
    "DaemonSet",
    "EndpointSlice",
    "HorizontalPodAutoscaler",
    "IngressClass",
    "LimitRange",
    "MutatingWebhookConfiguration",
    "NetworkPolicy",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "PodDisruptionBudget",
    "PodTemplate",
    "PriorityClass",
    "ReplicaSet",
    "ReplicationController",
    "ResourceQuota",
    "RoleBinding",
    "RuntimeClass",
    "ServiceAccount",
    "StatefulSet",
    "StorageClass",
    "ValidatingWebhookConfiguration",
    "VolumeAttachment",
  ].map((kind) => [kind.toLowerCase(), kind]),
);

/** The kind a resource path names (`/api/v1/namespaces/${ns}/secrets` → Secret), from a call's arguments as written. */
export function kindOfPath(argTexts: string[]): string | undefined {
  const resourcePath = argTexts.map((t) => t.replace(/^[`'"]|[`'"]$/g, "")).find((t) => t.startsWith("/"));
  const plural = resourcePath?.split("/").filter(Boolean).at(-1);
  // A path ending in a value known at run time (`.../${plural}`) names no kind.
  if (!plural || !/^[\w.-]+$/.test(plural)) return undefined;
  const singular = singularKind(plural);
  return BUILTIN_KINDS.get(singular.toLowerCase()) ?? capitalize(singular);
}

/** A raw client-node watch: `watch.watch(path, queryParams, callback, done)`, its path a string. */
export function isRawWatch(method: string, argTexts: string[]): boolean {
  return method === "watch" && argTexts.length >= 3 && /^[`'"]\//.test(argTexts[0] ?? "");
}

/** The event name a client-node constant stands for (`k8s.ADD`, or `ADD` imported from the library). */
export function clientNodeEventConstant(
  arg: Node | undefined,
  isClientNode: (name: string) => boolean,
): string | undefined {
  if (!arg) return undefined;
  if (Node.isPropertyAccessExpression(arg)) {
    const base = arg.getExpression();
    if (!Node.isIdentifier(base) || !isClientNode(base.getText())) return undefined;
    return CLIENT_NODE_EVENT_CONSTANTS[arg.getName()];
  }
  if (Node.isIdentifier(arg) && isClientNode(arg.getText())) return CLIENT_NODE_EVENT_CONSTANTS[arg.getText()];
  return undefined;
}
