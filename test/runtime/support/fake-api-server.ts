// Test helper (not a test): an in-process fake API server that records requests, and a KubeConfig pointing at it.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";
import { HttpKubeClient, type KubeClientOptions } from "@crdgen/runtime/client";
import type { ResourceDescriptor } from "@crdgen/runtime";

/** The namespaced custom resource the client tests talk to. */
export const widgets: ResourceDescriptor = {
  group: "example.com",
  version: "v1",
  plural: "widgets",
  kind: "Widget",
  namespaced: true,
};

export interface Recorded {
  method: string;
  path: string;
  /** Raw query string without "?", "" when none. */
  query: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  remotePort: number | undefined;
}

/**
 * Answers a recorded request, sync or async (the result is ignored; an async handler's rejection surfaces as
 * unhandled); the default echoes `{ kind: "Echo", metadata: { name: "echo" } }` with 200.
 */
export type Handler = (rec: Recorded, res: http.ServerResponse, req: http.IncomingMessage) => unknown;

export interface FakeApi {
  url: string;
  requests: Recorded[];
  kc: KubeConfig;
  client: HttpKubeClient;
  /** Sockets the server saw close, in order (to check that the client dropped a watch). */
  closedSockets: number;
  close(): Promise<void>;
}

/** A client of a port nothing listens on: for tests whose subject needs a KubeClient it never calls. */
export function unreachableKube(): HttpKubeClient {
  return HttpKubeClient.fromKubeConfig(makeKubeConfig("http://127.0.0.1:9"));
}

export function makeKubeConfig(server: string, token?: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "fake", server, skipTLSVerify: true }], // client-node refuses http:// servers otherwise
    users: [token ? { name: "u", token } : { name: "u" }],
    contexts: [{ name: "ctx", cluster: "fake", user: "u", namespace: "team-a" }],
    currentContext: "ctx",
  });
  return kc;
}

export function json(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: http.OutgoingHttpHeaders = {},
): void {
  res.writeHead(status, { "Content-Type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** Writes body in pieces of `size` bytes, one per event-loop turn, so the client sees many small chunks. */
export function writeInPieces(res: http.ServerResponse, body: Buffer, size: number): void {
  let at = 0;
  const next = (): void => {
    if (at >= body.length) return void res.end();
    res.write(body.subarray(at, (at += size)));
    setImmediate(next);
  };
  next();
}

const echo: Handler = (_rec, res) => json(res, 200, { apiVersion: "v1", kind: "Echo", metadata: { name: "echo" } });

export interface FakeApiOptions {
  /** A bearer token in the kubeconfig; the client is then opted in to sending it over the server's plain http. */
  token?: string;
  pathPrefix?: string;
  /** Options of api.client (e.g. small size limits). */
  client?: KubeClientOptions;
}

export async function startFakeApi(handler: Handler = echo, opts: FakeApiOptions = {}): Promise<FakeApi> {
  const requests: Recorded[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://x");
      const rec: Recorded = {
        method: req.method ?? "",
        path: url.pathname,
        query: url.search.replace(/^\?/, ""),
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf-8"),
        remotePort: req.socket.remotePort,
      };
      requests.push(rec);
      void handler(rec, res, req);
    });
  });
  const api: Partial<FakeApi> = { requests, closedSockets: 0 };
  server.on("connection", (s) => s.on("close", () => (api.closedSockets! += 1)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  // A fake that a failed test never closed must not hold its test file open (the run would hang, not fail).
  server.unref();
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}${opts.pathPrefix ?? ""}`;
  const kc = makeKubeConfig(url, opts.token);
  const client = HttpKubeClient.fromKubeConfig(kc, {
    ...opts.client,
    ...(opts.token !== undefined ? { allowCredentialsOverHttp: [url] } : {}),
  });
  return Object.assign(api, {
    url,
    kc,
    client,
    close: async () => {
      client.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  }) as FakeApi;
}

/** The single recorded request, asserting there was exactly one. */
export function only(api: FakeApi): Recorded {
  if (api.requests.length !== 1) throw new Error(`expected 1 request, got ${api.requests.length}`);
  return api.requests[0]!;
}
