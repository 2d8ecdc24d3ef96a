// loadKubeClient's kubeconfig reader: files ($KUBECONFIG merging, relative paths), contexts, the credentials it sends,
// the errors that name the file and entry at fault, and that the operator's imports stay clear of client-node.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { KubeconfigError, loadKubeClient } from "@crdgen/runtime/client";
import { type FakeApi, only, startFakeApi } from "../support/fake-api-server.js";

async function withApi(fn: (api: FakeApi, dir: string) => void | Promise<void>): Promise<void> {
  const api = await startFakeApi();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "crdgen-kubeconfig-"));
  try {
    await fn(api, dir);
  } finally {
    await api.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A kubeconfig for server (plain http, opted in to credentials) with one user; `extra` is merged over it. */
function kubeconfig(server: string, user: object, extra: Record<string, unknown> = {}): object {
  return {
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: "fake",
        cluster: {
          server,
          "insecure-skip-tls-verify": true,
          extensions: [{ name: "crdgen.dev/credentials-over-http", extension: { server } }],
        },
      },
    ],
    users: [{ name: "u", user }],
    contexts: [{ name: "ctx", context: { cluster: "fake", user: "u", namespace: "ns" } }],
    "current-context": "ctx",
    ...extra,
  };
}

function write(dir: string, name: string, doc: object | string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, typeof doc === "string" ? doc : JSON.stringify(doc));
  return file;
}

async function headersOf(api: FakeApi, kubeconfigFile: string): Promise<Record<string, unknown>> {
  const client = loadKubeClient({ kubeconfig: kubeconfigFile });
  try {
    await client.request({ method: "GET", path: "/version" });
  } finally {
    client.close();
  }
  return only(api).headers;
}

test("a missing kubeconfig file is a KubeconfigError naming the file", () => {
  const file = path.join(os.tmpdir(), "crdgen-no-such-kubeconfig");
  assert.throws(
    () => loadKubeClient({ kubeconfig: file }),
    (e: unknown) => {
      assert.ok(e instanceof KubeconfigError, String(e));
      assert.equal(e.message, `kubeconfig ${file}: no such file`);
      return true;
    },
  );
});

test("every kubeconfig problem is a KubeconfigError, which main() prints on one line: none at all, a bad file, a context", () =>
  withApi((api, dir) => {
    const saved = { HOME: process.env["HOME"], KUBECONFIG: process.env["KUBECONFIG"] };
    const host = process.env["KUBERNETES_SERVICE_HOST"];
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "crdgen-home-"));
    const isKubeconfigError = (message: string) => (e: unknown) =>
      e instanceof KubeconfigError && e.message === message;
    try {
      process.env["HOME"] = home;
      delete process.env["KUBECONFIG"];
      delete process.env["KUBERNETES_SERVICE_HOST"];
      assert.throws(
        () => loadKubeClient(),
        isKubeconfigError(
          "no kubeconfig: set KUBECONFIG, create ~/.kube/config, or run in a pod with a service account",
        ),
      );
    } finally {
      for (const [k, v] of Object.entries({ ...saved, KUBERNETES_SERVICE_HOST: host })) {
        if (v === undefined) Reflect.deleteProperty(process.env, k);
        else process.env[k] = v;
      }
      fs.rmSync(home, { recursive: true, force: true });
    }
    const list = write(dir, "list", "- a\n");
    assert.throws(
      () => loadKubeClient({ kubeconfig: list }),
      isKubeconfigError(`kubeconfig ${list}: not a kubeconfig (a YAML mapping with clusters, users and contexts)`),
    );
    const file = write(dir, "one", kubeconfig(api.url, { token: "t" }));
    assert.throws(
      () => loadKubeClient({ kubeconfig: file, context: "nope" }),
      isKubeconfigError('kubeconfig: no context named "nope"'),
    );
  }));

test("a kubeconfig that is not a mapping, or an entry missing a required field, names the file and the entry", () =>
  withApi((api, dir) => {
    const list = write(dir, "list", "- a\n- b\n");
    assert.throws(() => loadKubeClient({ kubeconfig: list }), new RegExp(`kubeconfig ${list}: not a kubeconfig`));
    const doc = kubeconfig(api.url, { token: "t" }) as { clusters: unknown[] };
    doc.clusters.push({ name: "broken", cluster: { "certificate-authority-data": "eA==" } });
    const noServer = write(dir, "no-server", doc);
    assert.throws(
      () => loadKubeClient({ kubeconfig: noServer }),
      new RegExp(`kubeconfig ${noServer}: clusters\\[1\\]\\.cluster\\.server is missing`),
    );
    const badType = write(dir, "bad-type", kubeconfig(api.url, { token: 42 }));
    assert.throws(
      () => loadKubeClient({ kubeconfig: badType }),
      new RegExp(`kubeconfig ${badType}: users\\[0\\]\\.user\\.token must be a string, got number`),
    );
  }));

test("no current-context, one not defined, or a context naming an undefined cluster or user: clear errors", () =>
  withApi((api, dir) => {
    const none = write(dir, "none", kubeconfig(api.url, { token: "t" }, { "current-context": undefined }));
    assert.throws(() => loadKubeClient({ kubeconfig: none }), /no current-context \(set one, or pass the context/);
    // The context option stands in for it.
    loadKubeClient({ kubeconfig: none, context: "ctx" }).close();

    const dangling = write(dir, "dangling", kubeconfig(api.url, { token: "t" }, { "current-context": "gone" }));
    assert.throws(() => loadKubeClient({ kubeconfig: dangling }), /current-context "gone" is not among its contexts/);
    assert.throws(() => loadKubeClient({ kubeconfig: dangling, context: "gone" }), /no context named "gone"/);

    const contexts = [
      { name: "no-cluster", context: { cluster: "elsewhere", user: "u" } },
      { name: "no-user", context: { cluster: "fake", user: "nobody" } },
    ];
    const file = write(dir, "contexts", kubeconfig(api.url, { token: "t" }, { contexts }));
    assert.throws(
      () => loadKubeClient({ kubeconfig: file, context: "no-cluster" }),
      /context "no-cluster" names cluster "elsewhere", which is not defined/,
    );
    assert.throws(
      () => loadKubeClient({ kubeconfig: file, context: "no-user" }),
      /context "no-user" names user "nobody", which is not defined/,
    );
  }));

test("$KUBECONFIG's files merge as in client-go: the first current-context and the first entry of a name win", () =>
  withApi(async (api, dir) => {
    const first = write(dir, "first", kubeconfig(api.url, { token: "first-token" }));
    const second = write(
      dir,
      "second",
      kubeconfig(
        api.url,
        { token: "second-token" },
        {
          users: [
            { name: "u", user: { token: "second-token" } },
            { name: "other", user: { token: "other-token" } },
          ],
          contexts: [{ name: "other", context: { cluster: "fake", user: "other", namespace: "elsewhere" } }],
          "current-context": "other",
        },
      ),
    );
    const saved = process.env["KUBECONFIG"];
    process.env["KUBECONFIG"] = [first, second].join(path.delimiter);
    try {
      const client = loadKubeClient();
      assert.equal(client.defaultNamespace, "ns");
      await client.request({ method: "GET", path: "/version" });
      client.close();
      const other = loadKubeClient({ context: "other" });
      assert.equal(other.defaultNamespace, "elsewhere");
      await other.request({ method: "GET", path: "/version" });
      other.close();
      assert.deepEqual(
        api.requests.map((r) => r.headers.authorization),
        ["Bearer first-token", "Bearer other-token"],
      );
    } finally {
      if (saved === undefined) delete process.env["KUBECONFIG"];
      else process.env["KUBECONFIG"] = saved;
    }
  }));

test("token-file is read relative to the kubeconfig; basic auth and `as` are sent as client-go sends them", () =>
  withApi(async (api, dir) => {
    fs.mkdirSync(path.join(dir, "secrets"));
    fs.writeFileSync(path.join(dir, "secrets", "token"), "from-token-file\n");
    const tokenFile = write(dir, "token-file", kubeconfig(api.url, { "token-file": "secrets/token", as: "jane" }));
    const headers = await headersOf(api, tokenFile);
    assert.equal(headers["authorization"], "Bearer from-token-file");
    assert.equal(headers["impersonate-user"], "jane");

    const missing = write(dir, "missing-token-file", kubeconfig(api.url, { "token-file": "nowhere" }));
    assert.throws(
      () => loadKubeClient({ kubeconfig: missing }),
      new RegExp(`kubeconfig ${missing}: users\\[0\\]\\.user\\.token-file ${path.join(dir, "nowhere")}: .*ENOENT`),
    );

    api.requests.length = 0;
    const basic = write(dir, "basic", kubeconfig(api.url, { username: "admin", password: "secret" }));
    const basicHeaders = await headersOf(api, basic);
    assert.equal(basicHeaders["authorization"], `Basic ${Buffer.from("admin:secret").toString("base64")}`);
  }));

test("an exec credential plugin's token is sent, and its cached credential reused until it expires", () =>
  withApi(async (api, dir) => {
    const counter = path.join(dir, "calls");
    const plugin = write(
      dir,
      "plugin.mjs",
      [
        'import fs from "node:fs";',
        `fs.appendFileSync(${JSON.stringify(counter)}, "x");`,
        "const expirationTimestamp = new Date(Date.now() + 3600_000).toISOString();",
        'const status = { token: "exec-token-" + process.env.PLUGIN_SUFFIX, expirationTimestamp };',
        'const apiVersion = "client.authentication.k8s.io/v1";',
        'console.log(JSON.stringify({ apiVersion, kind: "ExecCredential", status }));',
      ].join("\n"),
    );
    const exec = {
      apiVersion: "client.authentication.k8s.io/v1",
      command: process.execPath,
      args: [plugin],
      env: [{ name: "PLUGIN_SUFFIX", value: "42" }],
      interactiveMode: "Never",
    };
    const client = loadKubeClient({ kubeconfig: write(dir, "exec", kubeconfig(api.url, { exec })) });
    try {
      await client.request({ method: "GET", path: "/version" });
      await client.request({ method: "GET", path: "/version" });
    } finally {
      client.close();
    }
    assert.deepEqual(
      api.requests.map((r) => r.headers.authorization),
      ["Bearer exec-token-42", "Bearer exec-token-42"],
    );
    assert.equal(fs.readFileSync(counter, "utf8"), "x", "the plugin ran once");
  }));

test("no module an operator imports loads @kubernetes/client-node as a value (it costs about 70 MB of RSS)", () => {
  // The static import graph of the runtime's root and the subpaths an operator uses (envtest, testing: for tests).
  const runtimeDir = path.dirname(fileURLToPath(import.meta.resolve("@crdgen/runtime")));
  const entries = ["index.js", "client/index.js", "cache/index.js", "manager/index.js"];
  const seen = new Set<string>();
  const offenders: string[] = [];
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = fs.readFileSync(file, "utf8");
    for (const m of source.matchAll(/^(?:import|export)\s(?:[^;]*?\sfrom\s)?"([^"]+)";/gms)) {
      const spec = m[1]!;
      if (spec.startsWith("@kubernetes/client-node")) offenders.push(path.relative(runtimeDir, file));
      else if (spec.startsWith(".")) visit(path.resolve(path.dirname(file), spec));
    }
  };
  for (const entry of entries) {
    visit(path.join(runtimeDir, entry));
  }
  assert.ok(seen.size > 20, `walked ${seen.size} modules`);
  assert.deepEqual(offenders, []);
});
