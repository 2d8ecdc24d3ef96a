// KubeClient options that apply to every request: impersonate (Impersonate-User/-Group/-Uid, as kubectl --as) and the
// onResponse observer (method, path, content type and status of each exchange, errors included).
import { test } from "node:test";
import assert from "node:assert/strict";
import { ApiError } from "@crdgen/runtime";
import { HttpKubeClient, serviceAccountUser, type ResponseInfo } from "@crdgen/runtime/client";
import { json, startFakeApi } from "../support/fake-api-server.js";

test("requests and watches carry the impersonation headers; several groups are several header lines", async () => {
  const groupLines: string[][] = [];
  const api = await startFakeApi((rec, res, req) => {
    groupLines.push(rawValues(req.rawHeaders, "impersonate-group"));
    if (rec.query.includes("watch=true")) {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ type: "ADDED", object: { metadata: { name: "a" } } }) + "\n");
    } else json(res, 200, { metadata: { name: "a" } });
  });
  try {
    const user = serviceAccountUser("ops", "mysql-operator");
    const kube = HttpKubeClient.fromKubeConfig(api.kc, {
      impersonate: { user, groups: ["team-a", "team-b"], uid: "1234" },
    });
    assert.equal(user, "system:serviceaccount:ops:mysql-operator");
    await kube.request({ method: "GET", path: "/api/v1/namespaces/ops/configmaps/a" });
    for await (const _ of kube.watch({ path: "/api/v1/configmaps" })) break;
    kube.close();
    assert.equal(api.requests.length, 2);
    for (const rec of api.requests) {
      assert.equal(rec.headers["impersonate-user"], user);
      assert.equal(rec.headers["impersonate-uid"], "1234");
    }
    // One header line per group: the API server takes each line as one group (a joined "a, b" would be one group).
    assert.deepEqual(groupLines, [
      ["team-a", "team-b"],
      ["team-a", "team-b"],
    ]);
    assert.deepEqual(kube.impersonation, { user, groups: ["team-a", "team-b"], uid: "1234" });
  } finally {
    await api.close();
  }
});

test("without impersonate no Impersonate-* header is sent, and an empty user is refused", async () => {
  const api = await startFakeApi();
  try {
    await api.client.request({ method: "GET", path: "/api/v1/namespaces" });
    assert.ok(!Object.keys(api.requests[0]!.headers).some((h) => h.startsWith("impersonate-")));
    assert.throws(
      () => HttpKubeClient.fromKubeConfig(api.kc, { impersonate: { user: "" } }),
      /impersonate.user must not be empty/,
    );
  } finally {
    await api.close();
  }
});

function rawValues(raw: string[], name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) values.push(raw[i + 1]!);
  return values;
}

test("onResponse sees every exchange with its status, 2xx or not, watches included, before the body is read", async () => {
  const api = await startFakeApi((rec, res) => {
    if (rec.method === "DELETE") {
      json(res, 403, { kind: "Status", apiVersion: "v1", status: "Failure", reason: "Forbidden", code: 403 });
      return;
    }
    if (rec.query.includes("watch=true")) {
      res.writeHead(200, { "Content-Type": "application/json" });
      return res.end();
    }
    json(res, rec.method === "PATCH" ? 201 : 200, { metadata: { name: "a" } });
  });
  try {
    const seen: ResponseInfo[] = [];
    const kube = HttpKubeClient.fromKubeConfig(api.kc, { onResponse: (r) => seen.push(r) });
    await kube.request({
      method: "PATCH",
      path: "/api/v1/namespaces/a/configmaps/x",
      query: { fieldManager: "m" },
      body: {},
      contentType: "application/apply-patch+yaml",
    });
    await assert.rejects(
      kube.request({ method: "DELETE", path: "/api/v1/namespaces/a/configmaps/x" }),
      (e: unknown) => e instanceof ApiError && e.status === 403,
    );
    for await (const _ of kube.watch({ path: "/api/v1/configmaps", query: { resourceVersion: "1" } }))
      assert.fail("no events were sent");
    kube.close();
    assert.deepEqual(seen, [
      {
        method: "PATCH",
        path: "/api/v1/namespaces/a/configmaps/x",
        query: { fieldManager: "m" },
        contentType: "application/apply-patch+yaml",
        status: 201,
      },
      {
        method: "DELETE",
        path: "/api/v1/namespaces/a/configmaps/x",
        query: undefined,
        contentType: undefined,
        status: 403,
      },
      {
        method: "GET",
        path: "/api/v1/configmaps",
        query: { resourceVersion: "1", watch: true },
        contentType: undefined,
        status: 200,
      },
    ]);
  } finally {
    await api.close();
  }
});
