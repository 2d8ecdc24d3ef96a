// ResourceClient and KubeClient.request against a fake API server: method, path, query, content type, body, auth.
import { test } from "node:test";
import assert from "node:assert/strict";
import { KubeConfig } from "@kubernetes/client-node";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ResourceClient, loadKubeClient, type KubernetesObject, type ResourceDescriptor } from "@crdgen/runtime";
import { HttpKubeClient, bindResourceVerbs, jsonPointer, type Patch } from "@crdgen/runtime/client";
import {
  startFakeApi,
  only,
  json,
  type FakeApi,
  type FakeApiOptions,
  type Handler,
  widgets,
} from "../support/fake-api-server.js";

interface Widget extends KubernetesObject {
  apiVersion?: "example.com/v1";
  kind?: "Widget";
  spec?: {
    size?: number;
    tags?: string[];
    owner?: { name: string; team?: string };
    ports?: Array<{ name: string; port: number }>;
  };
  status?: { ready?: boolean };
}

const gadgets: ResourceDescriptor = {
  group: "example.com",
  version: "v1",
  plural: "gadgets",
  kind: "Gadget",
  namespaced: false,
};
const configmaps: ResourceDescriptor = {
  group: "",
  version: "v1",
  plural: "configmaps",
  kind: "ConfigMap",
  namespaced: true,
};

async function withApi(
  fn: (api: FakeApi) => void | Promise<void>,
  handler?: Handler,
  opts?: FakeApiOptions,
): Promise<void> {
  const api = await startFakeApi(handler, opts);
  try {
    await fn(api);
  } finally {
    await api.close();
  }
}

const w1: Widget = {
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: { name: "w1", namespace: "ns1" },
  spec: { size: 3 },
};

test("get on a namespaced kind: GET /apis/{group}/{version}/namespaces/{ns}/{plural}/{name}", () =>
  withApi(async (api) => {
    const got = await new ResourceClient<Widget>(api.client, widgets).get("ns1", "w1");
    const r = only(api);
    assert.equal(r.method, "GET");
    assert.equal(r.path, "/apis/example.com/v1/namespaces/ns1/widgets/w1");
    assert.equal(r.query, "");
    assert.equal(r.headers.accept, "application/json");
    assert.equal(r.headers["content-type"], undefined);
    assert.equal(got.metadata?.name, "echo");
  }));

test("get on a cluster-scoped kind omits the namespace segment", () =>
  withApi(async (api) => {
    await new ResourceClient(api.client, gadgets).get(undefined, "g1");
    assert.equal(only(api).path, "/apis/example.com/v1/gadgets/g1");
  }));

test("core group kinds use /api/{version}", () =>
  withApi(async (api) => {
    await new ResourceClient(api.client, configmaps).get("default", "cm1");
    assert.equal(only(api).path, "/api/v1/namespaces/default/configmaps/cm1");
  }));

test("list sends every ListOptions field as a query parameter", () =>
  withApi(async (api) => {
    await new ResourceClient<Widget>(api.client, widgets).list("ns1", {
      labelSelector: "app=web",
      fieldSelector: "metadata.name=w1",
      limit: 50,
      continue: "tok",
      resourceVersion: "0",
      resourceVersionMatch: "NotOlderThan",
      timeoutSeconds: 30,
      allowWatchBookmarks: false,
      sendInitialEvents: true,
    });
    const r = only(api);
    assert.equal(r.method, "GET");
    assert.equal(r.path, "/apis/example.com/v1/namespaces/ns1/widgets");
    assert.equal(
      r.query,
      "labelSelector=app%3Dweb&fieldSelector=metadata.name%3Dw1&limit=50&continue=tok&resourceVersion=0" +
        "&resourceVersionMatch=NotOlderThan&timeoutSeconds=30&allowWatchBookmarks=false&sendInitialEvents=true",
    );
  }));

test("list with an undefined namespace on a namespaced kind lists all namespaces", () =>
  withApi(async (api) => {
    await new ResourceClient<Widget>(api.client, widgets).list(undefined);
    const r = only(api);
    assert.equal(r.path, "/apis/example.com/v1/widgets");
    assert.equal(r.query, "");
  }));

test("create POSTs the object as JSON to the collection with dryRun, fieldManager and fieldValidation", () =>
  withApi(async (api) => {
    await new ResourceClient<Widget>(api.client, widgets).create("ns1", w1, {
      dryRun: true,
      fieldManager: "op",
      fieldValidation: "Strict",
    });
    const r = only(api);
    assert.equal(r.method, "POST");
    assert.equal(r.path, "/apis/example.com/v1/namespaces/ns1/widgets");
    assert.equal(r.query, "dryRun=All&fieldManager=op&fieldValidation=Strict");
    assert.equal(r.headers["content-type"], "application/json");
    assert.deepEqual(JSON.parse(r.body), w1);
  }));

test("update PUTs to the name taken from metadata.name", () =>
  withApi(async (api) => {
    await new ResourceClient<Widget>(api.client, widgets).update("ns1", w1);
    const r = only(api);
    assert.equal(r.method, "PUT");
    assert.equal(r.path, "/apis/example.com/v1/namespaces/ns1/widgets/w1");
    assert.equal(r.query, "");
    assert.equal(r.headers["content-type"], "application/json");
    assert.deepEqual(JSON.parse(r.body), w1);
  }));

test("json patch sends application/json-patch+json and the operations array", () =>
  withApi(async (api) => {
    const ops = [
      { op: "test", path: "/metadata/resourceVersion", value: "7" },
      { op: "replace", path: "/spec/size", value: 4 },
      { op: "remove", path: jsonPointer("metadata", "labels", "app.kubernetes.io/name") },
    ] as const;
    await new ResourceClient<Widget>(api.client, widgets).patch("ns1", "w1", { type: "json", ops: [...ops] });
    const r = only(api);
    assert.equal(r.method, "PATCH");
    assert.equal(r.path, "/apis/example.com/v1/namespaces/ns1/widgets/w1");
    assert.equal(r.headers["content-type"], "application/json-patch+json");
    assert.deepEqual(JSON.parse(r.body), ops);
    assert.equal(ops[2].path, "/metadata/labels/app.kubernetes.io~1name");
  }));

test("merge patch sends application/merge-patch+json and null deletes a field", () =>
  withApi(async (api) => {
    await new ResourceClient<Widget>(api.client, widgets).patch(
      "ns1",
      "w1",
      { type: "merge", body: { spec: { size: 5, owner: null } } },
      { fieldManager: "op" },
    );
    const r = only(api);
    assert.equal(r.method, "PATCH");
    assert.equal(r.headers["content-type"], "application/merge-patch+json");
    assert.equal(r.query, "fieldManager=op");
    assert.deepEqual(JSON.parse(r.body), { spec: { size: 5, owner: null } });
  }));

test("apply patch sends application/apply-patch+yaml with a JSON body and fieldManager/force query parameters", () =>
  withApi(async (api) => {
    const rc = new ResourceClient<Widget>(api.client, widgets);
    const body = {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w1" },
      spec: { owner: { name: "x" } },
    } as const;
    await rc.patch("ns1", "w1", { type: "apply", body, fieldManager: "my-operator", force: true });
    await rc.patch("ns1", "w1", { type: "apply", body, fieldManager: "my-operator" }, { dryRun: true });
    const [a, b] = api.requests;
    assert.equal(a?.method, "PATCH");
    assert.equal(a.path, "/apis/example.com/v1/namespaces/ns1/widgets/w1");
    assert.equal(a.headers["content-type"], "application/apply-patch+yaml");
    assert.equal(a.query, "fieldManager=my-operator&force=true");
    assert.deepEqual(JSON.parse(a.body), body);
    assert.equal(b?.query, "dryRun=All&fieldManager=my-operator");
  }));

test("delete sends DELETE with a DeleteOptions body", () =>
  withApi(async (api) => {
    await new ResourceClient<Widget>(api.client, widgets).delete("ns1", "w1", {
      propagationPolicy: "Foreground",
      gracePeriodSeconds: 0,
      preconditions: { uid: "u-1", resourceVersion: "9" },
    });
    const r = only(api);
    assert.equal(r.method, "DELETE");
    assert.equal(r.path, "/apis/example.com/v1/namespaces/ns1/widgets/w1");
    assert.equal(r.query, "");
    assert.equal(r.headers["content-type"], "application/json");
    assert.deepEqual(JSON.parse(r.body), {
      kind: "DeleteOptions",
      apiVersion: "v1",
      propagationPolicy: "Foreground",
      gracePeriodSeconds: 0,
      preconditions: { uid: "u-1", resourceVersion: "9" },
    });
  }));

test("deleteCollection sends DELETE to the collection with list selectors in the query and DeleteOptions in the body", () =>
  withApi(async (api) => {
    await new ResourceClient<Widget>(api.client, widgets).deleteCollection("ns1", {
      labelSelector: "app=web",
      propagationPolicy: "Background",
      dryRun: true,
    });
    const r = only(api);
    assert.equal(r.method, "DELETE");
    assert.equal(r.path, "/apis/example.com/v1/namespaces/ns1/widgets");
    assert.equal(r.query, "labelSelector=app%3Dweb&dryRun=All");
    assert.deepEqual(JSON.parse(r.body), { kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: "Background" });
  }));

test("watch sends GET with watch=true and the list options", () =>
  withApi(
    async (api) => {
      const events = [];
      for await (const e of new ResourceClient<Widget>(api.client, widgets).watch(undefined, {
        resourceVersion: "42",
        allowWatchBookmarks: true,
        timeoutSeconds: 300,
      })) {
        events.push(e);
      }
      const r = only(api);
      assert.equal(r.method, "GET");
      assert.equal(r.path, "/apis/example.com/v1/widgets");
      assert.equal(r.query, "resourceVersion=42&timeoutSeconds=300&allowWatchBookmarks=true&watch=true");
      assert.deepEqual(events, [{ type: "ADDED", object: w1 }]);
    },
    (_rec, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ type: "ADDED", object: w1 }) + "\n");
    },
  ));

test("updateStatus PUTs to the status subresource", () =>
  withApi(async (api) => {
    const obj = { ...w1, status: { ready: true } };
    await new ResourceClient<Widget>(api.client, widgets).updateStatus("ns1", obj);
    const r = only(api);
    assert.equal(r.method, "PUT");
    assert.equal(r.path, "/apis/example.com/v1/namespaces/ns1/widgets/w1/status");
    assert.deepEqual(JSON.parse(r.body), obj);
  }));

test("patchStatus PATCHes the status subresource with the patch's content type", () =>
  withApi(async (api) => {
    const rc = new ResourceClient<Widget>(api.client, gadgets);
    await rc.patchStatus(undefined, "g1", { type: "merge", body: { status: { ready: false } } });
    await rc.patchStatus(undefined, "g1", {
      type: "apply",
      body: { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "g1" }, status: { ready: true } },
      fieldManager: "op",
      force: false,
    });
    const [m, a] = api.requests;
    assert.equal(m?.method, "PATCH");
    assert.equal(m.path, "/apis/example.com/v1/gadgets/g1/status");
    assert.equal(m.headers["content-type"], "application/merge-patch+json");
    assert.equal(a?.path, "/apis/example.com/v1/gadgets/g1/status");
    assert.equal(a.headers["content-type"], "application/apply-patch+yaml");
    assert.equal(a.query, "fieldManager=op&force=false");
  }));

test("getScale and updateScale use the scale subresource", () =>
  withApi(
    async (api) => {
      const rc = new ResourceClient<Widget>(api.client, widgets);
      const scale = await rc.getScale("ns1", "w1");
      assert.equal(scale.spec?.replicas, 2);
      await rc.updateScale("ns1", "w1", { ...scale, spec: { replicas: 5 } });
      const [g, u] = api.requests;
      assert.equal(g?.method, "GET");
      assert.equal(g.path, "/apis/example.com/v1/namespaces/ns1/widgets/w1/scale");
      assert.equal(u?.method, "PUT");
      assert.equal(u.path, "/apis/example.com/v1/namespaces/ns1/widgets/w1/scale");
      assert.equal(u.headers["content-type"], "application/json");
      assert.equal((JSON.parse(u.body) as { spec: { replicas: number } }).spec.replicas, 5);
    },
    (_rec, res) =>
      json(res, 200, {
        apiVersion: "autoscaling/v1",
        kind: "Scale",
        metadata: { name: "w1" },
        spec: { replicas: 2 },
        status: { replicas: 2 },
      }),
  ));

test("a namespace on a cluster-scoped kind, or none on a namespaced get, rejects without a request", () =>
  withApi(async (api) => {
    await assert.rejects(new ResourceClient(api.client, gadgets).get("ns1", "g1"), /cluster-scoped/);
    await assert.rejects(new ResourceClient<Widget>(api.client, widgets).get(undefined, "w1"), /namespaced/);
    await assert.rejects(new ResourceClient<Widget>(api.client, widgets).create(undefined, w1), /namespaced/);
    await assert.rejects(
      new ResourceClient<Widget>(api.client, widgets).update("ns1", { kind: "Widget" }),
      /metadata\.name/,
    );
    assert.equal(api.requests.length, 0);
  }));

test("request skips undefined query values, stringifies booleans and numbers, and repeats array values", () =>
  withApi(async (api) => {
    await api.client.request({
      method: "GET",
      path: "/api/v1/pods",
      query: { a: undefined, b: true, c: 5, d: "x y", e: ["1", "2"], f: null },
    });
    assert.equal(only(api).query, "b=true&c=5&d=x+y&e=1&e=2");
  }));

test("a server URL with a path prefix keeps the prefix", () =>
  withApi(
    async (api) => {
      await new ResourceClient<Widget>(api.client, widgets).get("ns1", "w1");
      assert.equal(only(api).path, "/k8s/clusters/c-1/apis/example.com/v1/namespaces/ns1/widgets/w1");
    },
    undefined,
    { pathPrefix: "/k8s/clusters/c-1" },
  ));

test("the bearer token from the kubeconfig is sent as Authorization", () =>
  withApi(
    async (api) => {
      await new ResourceClient<Widget>(api.client, widgets).list("ns1");
      for await (const _ of api.client.watch({ path: "/api/v1/pods" })) break;
      assert.equal(api.requests.length, 2);
      for (const r of api.requests) assert.equal(r.headers.authorization, "Bearer s3cr3t-token");
    },
    (rec, res) => (rec.query.includes("watch=true") ? res.writeHead(200).end() : json(res, 200, { items: [] })),
    { token: "s3cr3t-token" },
  ));

test("authentication is re-applied on every request, so rotated tokens are used", () =>
  withApi(async (api) => {
    let n = 0;
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: "fake", server: api.url, skipTLSVerify: true }],
      users: [{ name: "u", authProvider: { name: "rotating", config: {} } }],
      contexts: [{ name: "ctx", cluster: "fake", user: "u" }],
      currentContext: "ctx",
    });
    kc.addAuthenticator({
      isAuthProvider: (user) => (user.authProvider as { name?: string } | undefined)?.name === "rotating",
      applyAuthentication: (_user, opts: { headers?: unknown }) => {
        n += 1;
        (opts.headers as Record<string, string>)["Authorization"] = `Bearer token-${n}`;
        return Promise.resolve();
      },
    });
    const client = HttpKubeClient.fromKubeConfig(kc, { allowCredentialsOverHttp: [api.url] });
    try {
      await client.request({ method: "GET", path: "/api/v1/namespaces" });
      await client.request({ method: "GET", path: "/api/v1/namespaces" });
    } finally {
      client.close();
    }
    assert.deepEqual(
      api.requests.map((r) => r.headers.authorization),
      ["Bearer token-1", "Bearer token-2"],
    );
  }));

test("sequential requests reuse one keep-alive connection", () =>
  withApi(async (api) => {
    const rc = new ResourceClient<Widget>(api.client, widgets);
    await rc.get("ns1", "a");
    await rc.get("ns1", "b");
    await rc.get("ns1", "c");
    assert.equal(api.requests.length, 3);
    assert.equal(new Set(api.requests.map((r) => r.remotePort)).size, 1);
  }));

test("the context's namespace is exposed as defaultNamespace", () =>
  withApi((api) => {
    assert.equal(api.client.defaultNamespace, "team-a");
    assert.equal(api.client.server, api.url);
  }));

test("bindResourceVerbs fixes the namespace and attaches subresource verbs only when enabled", () =>
  withApi(async (api) => {
    const rc = new ResourceClient<Widget>(api.client, widgets);
    const plain = bindResourceVerbs(rc, "ns2", { status: false, scale: false });
    const full = bindResourceVerbs(rc, "ns2", { status: true, scale: true });
    assert.equal("updateStatus" in plain || "getScale" in plain, false);
    await plain.get("w1");
    await plain.list({ limit: 1 });
    await full.patchStatus("w1", { type: "merge", body: { status: { ready: true } } });
    await full.getScale("w1");
    assert.deepEqual(
      api.requests.map((r) => `${r.method} ${r.path}`),
      [
        "GET /apis/example.com/v1/namespaces/ns2/widgets/w1",
        "GET /apis/example.com/v1/namespaces/ns2/widgets",
        "PATCH /apis/example.com/v1/namespaces/ns2/widgets/w1/status",
        "GET /apis/example.com/v1/namespaces/ns2/widgets/w1/scale",
      ],
    );
  }));

function writeKubeconfig(dir: string, server: string): string {
  const file = path.join(dir, "config");
  fs.writeFileSync(
    file,
    [
      "apiVersion: v1",
      "kind: Config",
      "clusters:",
      `- name: real\n  cluster:\n    server: ${server}\n    insecure-skip-tls-verify: true`,
      // The fake server is plain http: the bearer token below may travel to it only with this opt-in.
      `    extensions:\n    - name: crdgen.dev/credentials-over-http\n      extension: {server: "${server}"}`,
      "users:",
      "- name: admin\n  user:\n    token: from-file",
      "contexts:",
      "- name: first\n  context:\n    cluster: real\n    user: admin\n    namespace: one",
      "- name: second\n  context:\n    cluster: real\n    user: admin\n    namespace: two",
      "current-context: first",
      "",
    ].join("\n"),
  );
  return file;
}

test("loadKubeClient reads an explicit kubeconfig file and selects the requested context", () =>
  withApi(async (api) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "crdgen-kc-"));
    const client = loadKubeClient({ kubeconfig: writeKubeconfig(dir, api.url), context: "second" });
    try {
      assert.equal(client.defaultNamespace, "two");
      await client.request({ method: "GET", path: "/version" });
      assert.equal(only(api).headers.authorization, "Bearer from-file");
      assert.throws(
        () => loadKubeClient({ kubeconfig: path.join(dir, "config"), context: "nope" }),
        /no context named "nope"/,
      );
    } finally {
      client.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }));

test("loadKubeClient with no kubeconfig and no service account fails instead of falling back to localhost:8080", () => {
  const saved = {
    HOME: process.env["HOME"],
    KUBECONFIG: process.env["KUBECONFIG"],
    KUBERNETES_SERVICE_HOST: process.env["KUBERNETES_SERVICE_HOST"],
  };
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "crdgen-home-"));
  try {
    process.env["HOME"] = home;
    delete process.env["KUBECONFIG"];
    delete process.env["KUBERNETES_SERVICE_HOST"];
    assert.throws(() => loadKubeClient(), /no kubeconfig/);
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) Reflect.deleteProperty(process.env, k);
      else process.env[k] = v;
    }
    fs.rmSync(home, { recursive: true, force: true });
  }
});

test("patch types: apply needs apiVersion, kind and metadata.name; merge arrays need whole elements; no strategic merge", () => {
  const ok: Patch<Widget>[] = [
    { type: "merge", body: { spec: { owner: null, ports: [{ name: "http", port: 80 }] } } },
    {
      type: "apply",
      body: {
        apiVersion: "example.com/v1",
        kind: "Widget",
        metadata: { name: "w" },
        spec: { ports: [{ name: "http" }] },
      },
      fieldManager: "m",
    },
    { type: "json", ops: [{ op: "move", from: "/spec/a", path: "/spec/b" }] },
  ];
  const noName: Patch<Widget> = {
    type: "apply",
    // @ts-expect-error metadata.name is required in an apply configuration
    body: { apiVersion: "example.com/v1", kind: "Widget", metadata: {} },
    fieldManager: "m",
  };
  const wrongKind: Patch<Widget> = {
    type: "apply",
    // @ts-expect-error kind must be the resource's own kind
    body: { apiVersion: "example.com/v1", kind: "Gadget", metadata: { name: "w" } },
    fieldManager: "m",
  };
  // @ts-expect-error a merge patch replaces arrays whole, so an element cannot be partial
  const partialElement: Patch<Widget> = { type: "merge", body: { spec: { ports: [{ port: 80 }] } } };
  // @ts-expect-error strategic merge patch is not supported for custom resources
  const strategic: Patch<Widget> = { type: "strategic", body: {} };
  assert.equal(ok.length + [noName, wrongKind, partialElement, strategic].length, 7);
});
