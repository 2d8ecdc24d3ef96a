// Credentials and plain http: a bearer token or password goes to an http:// server only when the kubeconfig opts that
// server in (the crdgen.dev/credentials-over-http cluster extension) or the client option names it; neither
// insecure-skip-tls-verify nor a proxy-url is an opt-in, and nothing reaches the server or the proxy when refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { HttpKubeClient, kubeconfigCredentialsOverHttp, loadKubeClient } from "@crdgen/runtime/client";
import { type FakeApi, makeKubeConfig, startFakeApi } from "../support/fake-api-server.js";

async function withApi(fn: (api: FakeApi) => void | Promise<void>): Promise<void> {
  const api = await startFakeApi(); // no token: its own client sends no credentials
  try {
    await fn(api);
  } finally {
    await api.close();
  }
}

function refusal(server: string): RegExp {
  const s = server.replace(/[.]/g, "\\.");
  return new RegExp(
    `plain http server ${s}: refusing to send the credentials of user "u" .* in clear text.*` +
      `\\{name: crdgen\\.dev/credentials-over-http, extension: \\{server: "${s}"\\}\\}.*` +
      `allowCredentialsOverHttp.*insecure-skip-tls-verify and proxy-url are no opt-in`,
  );
}

function kubeConfig(cluster: { server: string; proxyUrl?: string }, user: Record<string, unknown>): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "fake", skipTLSVerify: true, ...cluster }],
    users: [{ name: "u", ...user }],
    contexts: [{ name: "ctx", cluster: "fake", user: "u" }],
    currentContext: "ctx",
  });
  return kc;
}

/** A kubeconfig file for server with a token; `extension` is the crdgen.dev/credentials-over-http value, if any. */
function kubeconfigFile(dir: string, name: string, server: string, extension?: object): string {
  const file = path.join(dir, name);
  const cluster: Record<string, unknown> = { server, "insecure-skip-tls-verify": true };
  if (extension) cluster["extensions"] = [{ name: "crdgen.dev/credentials-over-http", extension }];
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: `c-${name}`, cluster }],
    users: [{ name: "u", user: { token: "file-token" } }],
    contexts: [{ name: `ctx-${name}`, context: { cluster: `c-${name}`, user: "u" } }],
    "current-context": `ctx-${name}`,
  };
  fs.writeFileSync(file, JSON.stringify(config)); // JSON is YAML
  return file;
}

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "crdgen-plain-http-"));
}

test("a token for a plain http server is refused when the client is made, even with insecure-skip-tls-verify", () =>
  withApi((api) => {
    assert.throws(() => HttpKubeClient.fromKubeConfig(makeKubeConfig(api.url, "s3cr3t")), refusal(api.url));
    assert.throws(
      () => HttpKubeClient.fromKubeConfig(kubeConfig({ server: api.url }, { username: "u", password: "pw" })),
      refusal(api.url),
    );
    assert.equal(api.requests.length, 0);
  }));

test("a proxy-url in front of a plain http server is no exception: nothing reaches the proxy", () =>
  withApi(async (proxy) => {
    const server = "http://10.0.0.1:8080";
    // A token in the kubeconfig: refused when the client is made.
    assert.throws(
      () => HttpKubeClient.fromKubeConfig(kubeConfig({ server, proxyUrl: proxy.url }, { token: "s3cr3t" })),
      refusal(server),
    );
    // A token an authenticator adds per request: refused before the request leaves.
    const kc = kubeConfig({ server, proxyUrl: proxy.url }, {});
    kc.addAuthenticator({
      isAuthProvider: () => true,
      applyAuthentication: (_user, opts: { headers?: unknown }) => {
        (opts.headers as Record<string, string>)["Authorization"] = "Bearer from-plugin";
        return Promise.resolve();
      },
    });
    const client = HttpKubeClient.fromKubeConfig(kc);
    try {
      await assert.rejects(client.request({ method: "GET", path: "/version" }), refusal(server));
    } finally {
      client.close();
    }
    assert.equal(proxy.requests.length, 0);
  }));

test("the client option allowCredentialsOverHttp opts in that server (by origin) and no other", () =>
  withApi(async (api) => {
    const kc = makeKubeConfig(`${api.url}/prefix`, "s3cr3t");
    const other = api.url.replace(/:(\d+)$/, (_m, port: string) => `:${Number(port) + 1}`);
    assert.throws(() => HttpKubeClient.fromKubeConfig(kc, { allowCredentialsOverHttp: [other] }), /refusing/);
    const client = HttpKubeClient.fromKubeConfig(kc, { allowCredentialsOverHttp: [api.url] });
    try {
      await client.request({ method: "GET", path: "/version" });
    } finally {
      client.close();
    }
    assert.equal(api.requests.length, 1);
    assert.equal(api.requests[0]!.headers.authorization, "Bearer s3cr3t");
  }));

test("the kubeconfig's cluster extension crdgen.dev/credentials-over-http naming the server opts it in", () =>
  withApi(async (api) => {
    const dir = tempDir();
    try {
      const optedIn = kubeconfigFile(dir, "opted-in", api.url, { server: api.url });
      const client = loadKubeClient({ kubeconfig: optedIn });
      try {
        await client.request({ method: "GET", path: "/version" });
      } finally {
        client.close();
      }
      assert.equal(api.requests[0]?.headers.authorization, "Bearer file-token");

      // The extension must name this server: one naming another (say the entry's server was changed) does not count.
      const stale = kubeconfigFile(dir, "stale", api.url, { server: "http://10.0.0.1:8080" });
      assert.throws(() => loadKubeClient({ kubeconfig: stale }), refusal(api.url));
      const bare = kubeconfigFile(dir, "bare", api.url, { allow: true });
      assert.throws(() => loadKubeClient({ kubeconfig: bare }), refusal(api.url));
      assert.equal(api.requests.length, 1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }));

test("every file of $KUBECONFIG is read for the opt-in, as client-node merges them", () =>
  withApi(async (api) => {
    const dir = tempDir();
    const saved = process.env["KUBECONFIG"];
    try {
      const first = kubeconfigFile(dir, "first", api.url); // the current context, without the extension
      const second = path.join(dir, "second"); // only a cluster entry for the same server, with it
      fs.writeFileSync(
        second,
        JSON.stringify({
          clusters: [
            {
              name: "same-server",
              cluster: {
                server: api.url,
                extensions: [{ name: "crdgen.dev/credentials-over-http", extension: { server: api.url } }],
              },
            },
          ],
        }),
      );
      process.env["KUBECONFIG"] = first;
      assert.deepEqual(kubeconfigCredentialsOverHttp(), []);
      assert.throws(() => loadKubeClient(), refusal(api.url));

      process.env["KUBECONFIG"] = [first, second].join(path.delimiter);
      assert.deepEqual(kubeconfigCredentialsOverHttp(), [api.url]);
      const client = loadKubeClient();
      try {
        await client.request({ method: "GET", path: "/version" });
      } finally {
        client.close();
      }
      assert.equal(api.requests[0]?.headers.authorization, "Bearer file-token");
    } finally {
      if (saved === undefined) delete process.env["KUBECONFIG"];
      else process.env["KUBECONFIG"] = saved;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }));

test("a kubeconfig that is not YAML is named in the error", () => {
  const dir = tempDir();
  try {
    const file = path.join(dir, "broken");
    fs.writeFileSync(file, "clusters: [\n");
    assert.throws(
      () => kubeconfigCredentialsOverHttp(file),
      (e: unknown) => String(e).includes(`kubeconfig ${file}:`),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
