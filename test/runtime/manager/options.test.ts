// The operator's command line: controller-runtime's flag names, an environment variable each, flags winning.
import { test } from "node:test";
import { spawnSync } from "node:child_process";
import assert from "node:assert/strict";
import { managerUsage, parseManagerOptions } from "@crdgen/runtime/manager";
import { parseBindAddress } from "#runtime/manager/options.js";

test("defaults are controller-runtime's scaffold's: secure metrics :8443, probes :8081, all namespaces, no leader election, 30 s graceful shutdown", () => {
  assert.deepEqual(parseManagerOptions([], {}), {
    metricsBindAddress: ":8443",
    metricsSecure: true,
    watchNamespaces: [],
    healthProbeBindAddress: ":8081",
    leaderElect: false,
    shardingField: "uid",
    kube: {},
    gracefulShutdownTimeoutMs: 30_000,
    help: false,
  });
});

test("flags set every option; a flag wins over its environment variable", () => {
  const env = {
    METRICS_BIND_ADDRESS: ":9999",
    POD_NAMESPACE: "from-env",
    LEADER_ELECT: "false",
    KUBE_CONTEXT: "env-ctx",
  };
  const options = parseManagerOptions(
    [
      "--metrics-bind-address=127.0.0.1:8443",
      "--health-probe-bind-address",
      ":9440",
      "--leader-elect",
      "--leader-election-id=mysql-operator",
      "--leader-election-namespace=ops",
      "--graceful-shutdown-timeout=1m30s",
      "--kubeconfig=/k/config",
      "--kube-context=kind",
      "--sharding=mysql",
      "--sharding-field=namespace",
    ],
    env,
  );
  assert.deepEqual(options, {
    metricsBindAddress: "127.0.0.1:8443",
    metricsSecure: true,
    watchNamespaces: [],
    healthProbeBindAddress: ":9440",
    leaderElect: true,
    leaderElectionId: "mysql-operator",
    leaderElectionNamespace: "ops",
    sharding: "mysql",
    shardingField: "namespace",
    kube: { kubeconfig: "/k/config", context: "kind" },
    gracefulShutdownTimeoutMs: 90_000,
    help: false,
  });
});

test("environment variables alone configure it (a Deployment's env); POD_NAMESPACE is the Lease namespace", () => {
  const options = parseManagerOptions([], {
    METRICS_BIND_ADDRESS: "0",
    HEALTH_PROBE_BIND_ADDRESS: ":8081",
    LEADER_ELECT: "true",
    LEADER_ELECTION_ID: "lease-a",
    POD_NAMESPACE: "ops",
    GRACEFUL_SHUTDOWN_TIMEOUT: "500ms",
    KUBE_CONTEXT: "ctx",
    KUBECONFIG: "/ignored/here",
  });
  assert.equal(options.metricsBindAddress, "0");
  assert.equal(options.leaderElect, true);
  assert.equal(options.leaderElectionId, "lease-a");
  assert.equal(options.leaderElectionNamespace, "ops");
  assert.equal(options.gracefulShutdownTimeoutMs, 500);
  assert.deepEqual(
    options.kube,
    { context: "ctx" },
    "KUBECONFIG stays loadKubeClient's to read (it may list several files)",
  );
});

test("--context is --kube-context (kubectl's spelling, and crdgen generate's); the two may not differ", () => {
  assert.deepEqual(parseManagerOptions(["--context=kind"], {}).kube, { context: "kind" });
  assert.deepEqual(parseManagerOptions(["--context", "kind"], { KUBE_CONTEXT: "env" }).kube, { context: "kind" });
  assert.deepEqual(parseManagerOptions(["--context=kind", "--kube-context=kind"], {}).kube, { context: "kind" });
  assert.throws(
    () => parseManagerOptions(["--context=a", "--kube-context=b"], {}),
    /^Error: --kube-context and --context differ: give one$/,
  );
});

test("bad input fails with the flag or variable named", () => {
  assert.throws(
    () => parseManagerOptions(["--metrics-bind-adress=:1"], {}),
    /Unknown option '--metrics-bind-adress'[\s\S]*Usage:/,
  );
  assert.throws(
    () => parseManagerOptions(["--metrics-bind-address=8080"], {}),
    /--metrics-bind-address: "8080" is not host:port/,
  );
  assert.throws(
    () => parseManagerOptions([], { HEALTH_PROBE_BIND_ADDRESS: ":99999" }),
    /--health-probe-bind-address: ":99999"/,
  );
  assert.throws(() => parseManagerOptions([], { LEADER_ELECT: "maybe" }), /LEADER_ELECT: "maybe" is not true or false/);
  assert.throws(
    () => parseManagerOptions(["--graceful-shutdown-timeout=soon"], {}),
    /--graceful-shutdown-timeout: "soon" is not a duration/,
  );
  assert.throws(() => parseManagerOptions(["extra"], {}), /positional/i);
});

test("--metrics-secure=false opts out to plain HTTP on :8080; a bare --metrics-secure is true; cert path and namespaces", () => {
  const plain = parseManagerOptions(["--metrics-secure=false"], {});
  assert.deepEqual([plain.metricsSecure, plain.metricsBindAddress], [false, ":8080"]);
  assert.equal(parseManagerOptions([], { METRICS_SECURE: "false" }).metricsSecure, false);
  assert.equal(parseManagerOptions(["--metrics-secure"], { METRICS_SECURE: "false" }).metricsSecure, true);
  assert.equal(parseManagerOptions(["--metrics-secure", "--leader-elect"], {}).leaderElect, true);
  assert.equal(
    parseManagerOptions(["--metrics-secure=false", "--metrics-bind-address=:9090"], {}).metricsBindAddress,
    ":9090",
  );
  assert.equal(parseManagerOptions(["--metrics-cert-path=/certs"], {}).metricsCertPath, "/certs");
  assert.equal(parseManagerOptions(["--webhook-cert-path=/webhook-certs"], {}).webhookCertPath, "/webhook-certs");
  assert.equal(parseManagerOptions([], { WEBHOOK_CERT_PATH: "/from-env" }).webhookCertPath, "/from-env");
  assert.equal(parseManagerOptions([], {}).webhookCertPath, undefined);
  assert.deepEqual(parseManagerOptions(["--watch-namespaces=shop, db ,shop"], {}).watchNamespaces, ["shop", "db"]);
  assert.deepEqual(parseManagerOptions([], { WATCH_NAMESPACES: "a" }).watchNamespaces, ["a"]);
  assert.throws(
    () => parseManagerOptions(["--metrics-secure=maybe"], {}),
    /--metrics-secure: "maybe" is not true or false/,
  );
  assert.throws(() => parseManagerOptions([], { METRICS_SECURE: "nope" }), /METRICS_SECURE: "nope"/);
  assert.throws(
    () => parseManagerOptions(["--watch-namespaces=Shop"], {}),
    /--watch-namespaces: "Shop" is not a namespace name/,
  );
});

test("bind addresses: :port, host:port, [ipv6]:port, and 0 for off", () => {
  assert.deepEqual(parseBindAddress(":8080"), { port: 8080 });
  assert.deepEqual(parseBindAddress("0.0.0.0:8081"), { host: "0.0.0.0", port: 8081 });
  assert.deepEqual(parseBindAddress("[::1]:0"), { host: "::1", port: 0 });
  assert.equal(parseBindAddress("0"), undefined);
});

test("--help is reported, and the usage text lists every flag with its variable", () => {
  assert.equal(parseManagerOptions(["--help"], {}).help, true);
  const usage = managerUsage("mysql-operator");
  assert.match(usage, /^Usage: mysql-operator \[flags\]/);
  for (const [flag, variable] of [
    ["metrics-bind-address", "METRICS_BIND_ADDRESS"],
    ["health-probe-bind-address", "HEALTH_PROBE_BIND_ADDRESS"],
    ["leader-elect", "LEADER_ELECT"],
    ["leader-election-namespace", "POD_NAMESPACE"],
  ]) {
    assert.match(usage, new RegExp(`--${flag}\\b.*env ${variable}`));
  }
});

test("commandLineOptions: --help prints the usage and exits 0; a bad flag prints the reason and the usage and exits 2", () => {
  const run = (...args: string[]) =>
    // With -e, process.argv is [node, ...args after --].
    spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { commandLineOptions } from "@crdgen/runtime"; commandLineOptions("my-op", process.argv.slice(1)); console.log("parsed");`,
        "--",
        ...args,
      ],
      { encoding: "utf8" },
    );
  const help = run("--help");
  assert.equal(help.status, 0);
  assert.match(help.stdout, /^Usage: my-op \[flags\]/);
  assert.doesNotMatch(help.stdout, /parsed/);
  const bad = run("--leader-elect=yes");
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /^my-op: Option '--leader-elect' does not take an argument[\s\S]*Usage: my-op/);
  assert.doesNotMatch(bad.stderr, /\n\s+at /, "no stack trace");
  const ok = run("--leader-elect");
  assert.equal(ok.status, 0);
  assert.equal(ok.stdout, "parsed\n");
});

test("--sharding takes a name that can prefix Lease names; --sharding-field uid or namespace; SHARDING from env", () => {
  assert.equal(parseManagerOptions([], { SHARDING: "mysql-operator" }).sharding, "mysql-operator");
  assert.throws(() => parseManagerOptions(["--sharding=My_Group"], {}), /--sharding: "My_Group" is not a name/);
  assert.throws(
    () => parseManagerOptions(["--sharding-field=name"], {}),
    /--sharding-field: "name" is not uid or namespace/,
  );
});
