// What a running manager's /metrics holds besides the controllers' series: Go's process collector names and the
// Node.js runtime's (prom-client's default collectors), and client-go's rest_client_* counted from the requests of
// every HttpKubeClient (a fake API server answers them).
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ManagedController } from "@crdgen/runtime";
import { ApiError, HttpKubeClient, TransportError } from "@crdgen/runtime/client";
import { REST_CLIENT_DURATION_BUCKETS, Registry } from "@crdgen/runtime/metrics";
import { startManager } from "@crdgen/runtime/manager";
import { json, startFakeApi, unreachableKube } from "../support/fake-api-server.js";
import { quiet } from "../support/cache-fakes.js";

const idle: ManagedController = {
  name: "things.example.com",
  hasSynced: () => true,
  run: (signal) => new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true })),
};

/** The sample value of the series `name{labels}` (labels as exposed, in order), or undefined when absent. */
function sample(exposition: string, series: string): number | undefined {
  const line = exposition.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

test("/metrics has process, Node.js runtime and rest_client series; request counts and durations move", async () => {
  const api = await startFakeApi((rec, res) => {
    if (rec.method === "DELETE") json(res, 404, { kind: "Status", apiVersion: "v1", code: 404, reason: "NotFound" });
    else json(res, 200, { kind: "ConfigMap", apiVersion: "v1", metadata: { name: "a" } });
  });
  const kube = HttpKubeClient.fromKubeConfig(api.kc);
  const host = new URL(api.url).host;
  const stop = new AbortController();
  const manager = await startManager([idle], {
    kube,
    logger: quiet,
    registry: new Registry(),
    signal: stop.signal,
    options: {
      metricsBindAddress: "127.0.0.1:0",
      metricsSecure: false,
      healthProbeBindAddress: "0",
      leaderElect: false,
    },
  });
  const scrape = async () => (await fetch(`http://127.0.0.1:${manager.metricsPort}/metrics`)).text();
  const unreachable = unreachableKube();
  try {
    const path = "/api/v1/namespaces/a/configmaps/a";
    await kube.request({ method: "GET", path });
    await assert.rejects(kube.request({ method: "DELETE", path }), ApiError);
    await assert.rejects(unreachable.request({ method: "GET", path }), TransportError);
    const first = await scrape();
    for (const name of [
      "process_resident_memory_bytes",
      "process_cpu_seconds_total",
      "process_open_fds",
      "process_max_fds",
      "process_start_time_seconds",
      "nodejs_heap_size_used_bytes",
    ])
      assert.ok((sample(first, name) ?? 0) > 0, `${name} is exposed and positive`);
    // Measured at scrape time (a setImmediate's delay; 0 on an idle loop) and from the loop-delay monitor.
    for (const name of ["nodejs_eventloop_lag_seconds", "nodejs_eventloop_lag_p99_seconds"])
      assert.ok((sample(first, name) ?? -1) >= 0, `${name} is exposed`);
    assert.match(first, /^# TYPE nodejs_gc_duration_seconds histogram$/m);
    assert.equal(sample(first, `rest_client_requests_total{code="200",method="GET",host="${host}"}`), 1);
    assert.equal(sample(first, `rest_client_requests_total{code="404",method="DELETE",host="${host}"}`), 1);
    assert.equal(sample(first, `rest_client_requests_total{code="<error>",method="GET",host="127.0.0.1:9"}`), 1);
    assert.equal(sample(first, `rest_client_request_duration_seconds_count{verb="GET",host="${host}"}`), 1);
    // client-go's buckets, and nothing else.
    const les = [
      ...first.matchAll(/^rest_client_request_duration_seconds_bucket\{le="([^"]+)",verb="GET",host="[^"]+"\}/gm),
    ]
      .map((m) => m[1])
      .filter((le, i, all) => all.indexOf(le) === i);
    assert.deepEqual(les, [...REST_CLIENT_DURATION_BUCKETS.map(String), "+Inf"]);

    await kube.request({ method: "GET", path });
    const second = await scrape();
    assert.equal(sample(second, `rest_client_requests_total{code="200",method="GET",host="${host}"}`), 2);
    assert.equal(sample(second, `rest_client_request_duration_seconds_count{verb="GET",host="${host}"}`), 2);
    assert.ok((sample(second, "process_cpu_seconds_total") ?? 0) >= (sample(first, "process_cpu_seconds_total") ?? 0));
  } finally {
    stop.abort();
    await manager.done;
    kube.close();
    unreachable.close();
    await api.close();
  }
});
