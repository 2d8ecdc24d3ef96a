// startManager: metrics and probe servers on their addresses, /readyz following the caches, graceful stop closing both.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";
import type { ManagedController } from "@crdgen/runtime";
import { HttpKubeClient } from "@crdgen/runtime/client";
import { Registry } from "@crdgen/runtime/metrics";
import { startManager } from "@crdgen/runtime/manager";
import { unreachableKube } from "../support/fake-api-server.js";
import { quiet } from "../support/cache-fakes.js";

// The manager never calls the API server without leader election; the client only has to exist.
const kube = unreachableKube();

/** A controller whose caches sync when the test says so, and which runs until stopped. */
function fakeController(name = "things.example.com"): ManagedController & { sync(): void; runs: number } {
  let synced = false;
  const c = {
    name,
    runs: 0,
    sync: () => (synced = true),
    hasSynced: () => synced,
    run: (signal: AbortSignal) => {
      c.runs++;
      return new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    },
  };
  return c;
}

async function get(port: number, path: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: res.status, body: await res.text() };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test("metrics and probes on separate ports: each answers only its own paths; /readyz waits for the caches; stopping closes both", async () => {
  const registry = new Registry();
  const controller = fakeController();
  const stop = new AbortController();
  const manager = await startManager([controller], {
    kube,
    logger: quiet,
    registry,
    signal: stop.signal,
    options: {
      metricsBindAddress: "127.0.0.1:0",
      metricsSecure: false,
      healthProbeBindAddress: "127.0.0.1:0",
      leaderElect: false,
    },
  });
  try {
    assert.ok(manager.metricsPort && manager.healthProbePort && manager.metricsPort !== manager.healthProbePort);
    assert.equal((await get(manager.healthProbePort, "/healthz")).status, 200);
    const notReady = await get(manager.healthProbePort, "/readyz?verbose");
    assert.equal(notReady.status, 500);
    assert.match(notReady.body, /caches not synced yet: things\.example\.com/);
    controller.sync();
    assert.equal((await get(manager.healthProbePort, "/readyz")).status, 200);
    assert.equal((await get(manager.healthProbePort, "/metrics")).status, 404, "metrics live on their own port");
    assert.equal((await get(manager.metricsPort, "/metrics")).status, 200);
    assert.equal((await get(manager.metricsPort, "/healthz")).status, 404, "probes live on their own port");
    assert.equal(controller.runs, 1);
    assert.equal(manager.isLeading(), true, "without leader election the controllers always run");
  } finally {
    stop.abort();
    await manager.done;
  }
  assert.equal(manager.isLeading(), false);
  await assert.rejects(
    fetch(`http://127.0.0.1:${manager.healthProbePort}/healthz`),
    "the probe server is closed once the manager stopped",
  );
  await assert.rejects(fetch(`http://127.0.0.1:${manager.metricsPort}/metrics`));
});

test('with --metrics-secure=false the same address for metrics and probes shares one server; "0" turns metrics off', async () => {
  const port = await freePort();
  const stop = new AbortController();
  const shared = await startManager([fakeController()], {
    kube,
    logger: quiet,
    registry: new Registry(),
    signal: stop.signal,
    options: {
      metricsBindAddress: `127.0.0.1:${port}`,
      metricsSecure: false,
      healthProbeBindAddress: `127.0.0.1:${port}`,
      leaderElect: false,
    },
  });
  assert.equal(shared.metricsPort, port);
  assert.equal(shared.healthProbePort, port);
  assert.equal((await get(port, "/metrics")).status, 200);
  assert.equal((await get(port, "/healthz")).status, 200);
  stop.abort();
  await shared.done;

  const stop2 = new AbortController();
  const noMetrics = await startManager([fakeController()], {
    kube,
    logger: quiet,
    signal: stop2.signal,
    options: { metricsBindAddress: "0", healthProbeBindAddress: "127.0.0.1:0", leaderElect: false },
  });
  assert.equal(noMetrics.metricsPort, undefined);
  assert.equal((await get(noMetrics.healthProbePort!, "/metrics")).status, 404);
  stop2.abort();
  await noMetrics.done;
});

test("leader election without any namespace for the Lease fails before anything starts, saying how to set one", async () => {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "c", server: "http://127.0.0.1:9", skipTLSVerify: true }],
    users: [{ name: "u" }],
    contexts: [{ name: "ctx", cluster: "c", user: "u" }],
    currentContext: "ctx",
  });
  const controller = fakeController();
  await assert.rejects(
    startManager([controller], {
      kube: HttpKubeClient.fromKubeConfig(kc),
      logger: quiet,
      options: { metricsBindAddress: "0", healthProbeBindAddress: "0", leaderElect: true },
    }),
    /leader election needs a namespace for its Lease: set POD_NAMESPACE or --leader-election-namespace/,
  );
  assert.equal(controller.runs, 0);
});

test("an address already in use fails startManager and leaves no server behind", async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
  const busy = (blocker.address() as { port: number }).port;
  try {
    const controller = fakeController();
    await assert.rejects(
      startManager([controller], {
        kube,
        logger: quiet,
        registry: new Registry(),
        options: { metricsBindAddress: `127.0.0.1:${busy}`, healthProbeBindAddress: "127.0.0.1:0", leaderElect: false },
      }),
      /EADDRINUSE/,
    );
    assert.equal(controller.runs, 0);
  } finally {
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
  }
});
