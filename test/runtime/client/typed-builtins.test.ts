// Descriptors carry their object type: builtinResources.deployments is a descriptor of V1Deployment, and every API that
// takes a descriptor (ResourceClient, ctx.children, forResource, FakeCluster) infers its type from it. `npx tsc -b`
// checks the type-level half (each @ts-expect-error must meet an error); the tests check what the typed calls return.
import { test } from "node:test";
import assert from "node:assert/strict";
import type {
  V1ConfigMap,
  V1Deployment,
  V1Namespace,
  V1Secret,
  V1Service,
  V1StatefulSet,
} from "@kubernetes/client-node";
import {
  Controller,
  ResourceClient,
  builtinResources as kinds,
  type ApplyConfiguration,
  type KubernetesObject,
  type ResourceDescriptor,
  type WatchSpec,
} from "@crdgen/runtime";
import { ClusterLister, Lister, SharedInformerFactory, type SharedIndexInformer } from "@crdgen/runtime/cache";
import { FakeCluster, fakeChildObjects } from "@crdgen/runtime/testing";
import { quiet } from "../support/cache-fakes.js";
import {
  mySQLClusterResource,
  type MySQLCluster,
} from "../../../samples/mysql/generated/example.com/v1/mysqlcluster.types.js";

/** True when A and B are the same type (not merely assignable one way). */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the standard type-equality idiom: X only ties the two signatures together
type Equals<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Equals<A, B>): Equals<A, B> => proof;

const deployment = (name: string): ApplyConfiguration<V1Deployment> => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, namespace: "ns", labels: { app: name } },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "web", image: "nginx" }] } },
  },
});

// A custom resource's descriptor typed the way a generated one can be: its literal fields, plus its object type.
interface Widget {
  apiVersion: "example.com/v1";
  kind: "Widget";
  metadata: { name?: string; namespace?: string; resourceVersion?: string };
  spec?: { size: number };
  status?: { ready: boolean; observedSize?: number };
}
const widgetFields = {
  group: "example.com",
  version: "v1",
  plural: "widgets",
  kind: "Widget",
  namespaced: true,
} as const;
const widgets: typeof widgetFields & ResourceDescriptor<Widget> = widgetFields;

test("ctx.children.apply of a built-in kind takes that kind's apply configuration and returns its object type", async () => {
  const cluster = new FakeCluster();
  const children = fakeChildObjects(cluster);
  const service = await children.apply(kinds.services, {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "web", namespace: "ns" },
    spec: { selector: { app: "web" }, ports: [{ port: 80 }] },
  });
  same<typeof service.object, V1Service>(true);
  assert.equal(service.object.spec?.ports?.[0]?.port, 80);

  const applied = await children.apply(kinds.deployments, deployment("web"));
  same<typeof applied.object, V1Deployment>(true);
  assert.equal(applied.object.spec?.replicas, 2);

  // Never called: each @ts-expect-error line is checked by the build.
  const _refused = async () => {
    const deploymentBody = { ...deployment("web"), kind: "Deployment" as const };
    // @ts-expect-error a Deployment's body is not a Service's: its kind differs, and so does spec.selector
    await children.apply(kinds.services, deploymentBody);
    // @ts-expect-error an ApplyConfiguration<V1Deployment> (kind typed string) does not fit a Service's fields
    await children.apply(kinds.services, deployment("web"));
    // @ts-expect-error a ConfigMap body has a Secret's fields, but its kind is refused for builtinResources.secrets
    await children.apply(kinds.secrets, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: {} });
    await children.apply(kinds.services, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "s" },
      // @ts-expect-error a Service's spec has no replicas, even with the right kind
      spec: { replicas: 1 },
    });
    // @ts-expect-error a custom resource's typed descriptor checks the body's kind too
    await children.apply(widgets, { apiVersion: "example.com/v1", kind: "Gadget", metadata: { name: "w" } });
  };
});

test("a generated CRD descriptor carries its object type, as the built-in ones do", async () => {
  const cluster = new FakeCluster();
  cluster.register(mySQLClusterResource);
  const children = fakeChildObjects(cluster);
  const applied = await children.apply(mySQLClusterResource, {
    apiVersion: "example.com/v1",
    kind: "MySQLCluster",
    metadata: { name: "db", namespace: "ns" },
    spec: { replicas: 3 },
  });
  same<typeof applied.object, MySQLCluster>(true);
  assert.equal(applied.object.spec?.replicas, 3);
  const client = new ResourceClient(cluster.kubeClient(), mySQLClusterResource);
  same<typeof client, ResourceClient<MySQLCluster>>(true);
  const got = await client.get("ns", "db");
  same<typeof got, MySQLCluster>(true);
  assert.equal(got.spec?.replicas, 3, "the client reads back what ctx.children applied");
  // Never called: each @ts-expect-error line is checked by the build.
  const _refused = async () => {
    // @ts-expect-error a ConfigMap body is not a MySQLCluster's
    await children.apply(mySQLClusterResource, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } });
    await children.apply(mySQLClusterResource, {
      apiVersion: "example.com/v1",
      kind: "MySQLCluster",
      metadata: { name: "db" },
      // @ts-expect-error replicas is a number
      spec: { replicas: "3" },
    });
    // @ts-expect-error the generated descriptor gives MySQLClusters, not Deployments
    children.get<V1Deployment>(mySQLClusterResource, "ns", "db");
    // @ts-expect-error nor is the MySQLCluster descriptor a Service's
    await children.apply(kinds.services, {
      apiVersion: "example.com/v1",
      kind: "MySQLCluster",
      metadata: { name: "s" },
    });
  };
});

test("ctx.children.get and list of a built-in kind are typed by the descriptor and return what apply wrote", async () => {
  const cluster = new FakeCluster();
  const children = fakeChildObjects(cluster);
  await children.apply(kinds.deployments, deployment("web"));
  await children.apply(kinds.deployments, deployment("api"));

  const got = children.get(kinds.deployments, "ns", "web");
  same<typeof got, V1Deployment | undefined>(true);
  // @ts-expect-error a Deployment is not a Service
  const _asService: V1Service | undefined = got;
  assert.deepEqual(got?.spec?.selector, { matchLabels: { app: "web" } });

  const listed = children.list(kinds.deployments, "ns");
  same<typeof listed, V1Deployment[]>(true);
  assert.deepEqual(
    listed.map((d) => [d.metadata?.name, d.spec?.replicas]),
    [
      ["api", 2],
      ["web", 2],
    ],
  );
  // An explicit type argument must agree with the descriptor.
  // @ts-expect-error a Deployment's descriptor does not give Services
  children.get<V1Service>(kinds.deployments, "ns", "web");
  assert.equal(children.get<V1StatefulSet>(kinds.statefulSets, "ns", "web"), undefined);
});

test("a ResourceClient of a built-in descriptor is typed by it and reads back what was created", async () => {
  const cluster = new FakeCluster();
  const configMaps = new ResourceClient(cluster.kubeClient(), kinds.configMaps);
  same<typeof configMaps, ResourceClient<V1ConfigMap>>(true);
  await configMaps.create("ns", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "conf" }, data: { a: "1" } });
  const conf = await configMaps.get("ns", "conf");
  same<typeof conf, V1ConfigMap>(true);
  assert.deepEqual(conf.data, { a: "1" });
  // @ts-expect-error a ConfigMap's data holds strings
  await configMaps.patch("ns", "conf", { type: "merge", body: { data: { a: 1 } } });

  // A descriptor typed only `ResourceDescriptor` still serves any kind the caller names.
  const untyped: ResourceDescriptor = kinds.secrets;
  const secrets = new ResourceClient<V1Secret>(cluster.kubeClient(), untyped);
  await secrets.create("ns", { metadata: { name: "s" }, stringData: { k: "v" } });
  assert.equal((await secrets.list("ns")).items.length, 1);
});

test("forResource of a built-in descriptor gives a typed informer, a Lister for a namespaced kind, a ClusterLister otherwise", async () => {
  const cluster = new FakeCluster();
  const kube = cluster.kubeClient();
  cluster.create(kinds.namespaces, undefined, { metadata: { name: "ns" } });
  await fakeChildObjects(cluster).apply(kinds.deployments, deployment("web"));
  const factory = new SharedInformerFactory();
  const deployments = factory.forResource(kube, kinds.deployments, { logger: quiet });
  const namespaces = factory.forResource(kube, kinds.namespaces, { logger: quiet });
  same<typeof deployments.lister, Lister<V1Deployment>>(true);
  same<typeof namespaces.lister, ClusterLister<V1Namespace>>(true);
  // An untyped descriptor's scope is not known: either lister.
  const untyped: ResourceDescriptor = kinds.deployments;
  same<typeof untyped.namespaced, boolean>(true);
  const either = factory.forResource<V1Deployment>(kube, untyped).lister;
  same<typeof either, Lister<V1Deployment> | ClusterLister<V1Deployment>>(true);
  assert.ok(either instanceof Lister);
  assert.equal(
    factory.forResource(kube, untyped).informer,
    deployments.informer,
    "one informer per resource and scope",
  );

  const stop = new AbortController();
  factory.start(stop.signal);
  try {
    assert.equal(await factory.waitForCacheSync(stop.signal), true);
    assert.ok(deployments.lister instanceof Lister);
    assert.ok(namespaces.lister instanceof ClusterLister);
    assert.equal(deployments.lister.get("ns", "web")?.spec?.replicas, 2);
    assert.equal(namespaces.lister.get("ns")?.metadata?.name, "ns");
  } finally {
    stop.abort();
    await factory.shutdown();
  }
});

test("FakeCluster's verbs are typed by the descriptor, and its status patch checks the resource's status type", () => {
  const cluster = new FakeCluster();
  cluster.register(widgets);
  cluster.patch(kinds.deployments, "ns", "web", { type: "apply", body: deployment("web"), fieldManager: "test" });
  const patched = cluster.patchStatus(kinds.deployments, "ns", "web", {
    type: "merge",
    body: { status: { readyReplicas: 2 } },
  });
  const status: V1Deployment["status"] = patched.status;
  assert.equal(status?.readyReplicas, 2);
  assert.equal(cluster.get(kinds.deployments, "ns", "web").status?.readyReplicas, 2);

  cluster.create(widgets, "ns", {
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name: "w" },
    spec: { size: 3 },
  });
  const ready = cluster.patchStatus(widgets, "ns", "w", { type: "merge", body: { status: { ready: true } } });
  same<typeof ready.status, Widget["status"]>(true);
  assert.deepEqual(ready.status, { ready: true });
  // The status subresource keeps only status: the spec sent along is dropped.
  cluster.patchStatus(widgets, "ns", "w", { type: "merge", body: { spec: { size: 9 }, status: { ready: false } } });
  assert.deepEqual(cluster.get(widgets, "ns", "w").spec, { size: 3 });

  const _refused = () => {
    // @ts-expect-error a Deployment's readyReplicas is a number
    cluster.patchStatus(kinds.deployments, "ns", "web", { type: "merge", body: { status: { readyReplicas: "2" } } });
    // @ts-expect-error a Widget's status has no phase
    cluster.patchStatus(widgets, "ns", "w", { type: "merge", body: { status: { phase: "Ready" } } });
    // @ts-expect-error a Widget's ready is a boolean
    cluster.updateStatus(widgets, "ns", { ...cluster.get(widgets, "ns", "w"), status: { ready: "yes" } });
  };
  // Objects of an untyped descriptor stay loosely typed, as before: any field reads as unknown.
  const untyped: ResourceDescriptor = widgetFields;
  const loose = cluster.get(untyped, "ns", "w");
  same<typeof loose.spec, unknown>(true);
  assert.deepEqual(loose.spec, { size: 3 });
});

// Type-level only (never called): owns() returns the owned kind's informer, watches() types mapToKeys' object.
function _ownedAndWatchedKindsAreTyped(controller: Controller<KubernetesObject>): void {
  const _owned = controller.owns(kinds.statefulSets);
  same<typeof _owned, SharedIndexInformer<V1StatefulSet>>(true);
  // mapToKeys' object is a V1Secret: its `type` field is known.
  controller.watches({
    resource: kinds.secrets,
    mapToKeys: (secret) => [secret.type ?? ""],
  });
  // @ts-expect-error a watch of Services cannot be fed Deployments' descriptor
  const _wrong: WatchSpec<V1Service> = { resource: kinds.deployments, mapToKeys: () => [] };
}
