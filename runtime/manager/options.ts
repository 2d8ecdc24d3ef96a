// The operator process's command line, with controller-runtime's flag names and an environment variable for each
// (a flag wins over its variable), so a Deployment can configure it either way.
import { parseArgs } from "node:util";
import type { LoadKubeClientOptions } from "../client/kube-client.js";

/** --graceful-shutdown-timeout's default, controller-runtime's: in-flight reconciles get this long to finish. */
export const defaultGracefulShutdownTimeoutMs = 30_000;
export interface ManagerOptions {
  /** `host:port`, `:port` (all interfaces) or "0" (off). Default ":8443", or ":8080" with metricsSecure false. */
  metricsBindAddress: string;
  /**
   * Serve /metrics over HTTPS to callers whose bearer token passes a TokenReview and whose user may `get` the path
   * (SubjectAccessReview), as controller-runtime's scaffold does. Default true; false serves plain, open HTTP.
   */
  metricsSecure: boolean;
  /** A folder holding tls.crt and tls.key for the secure metrics server. Default: a self-signed certificate. */
  metricsCertPath?: string;
  /** A folder holding tls.crt and tls.key for the webhook server (kubebuilder's --webhook-cert-path). */
  webhookCertPath?: string;
  /** Serve only these namespaces (controller-runtime's cache DefaultNamespaces). Default: all (empty). */
  watchNamespaces: string[];
  /** Serves /healthz and /readyz; same forms. Default ":8081". A value equal to metricsBindAddress shares one server. */
  healthProbeBindAddress: string;
  /** Run the controllers only while holding a coordination.k8s.io Lease. Default false. */
  leaderElect: boolean;
  /** The Lease name. Default: the first controller's name. */
  leaderElectionId?: string;
  /** The Lease namespace. Default: $POD_NAMESPACE, then the pod's service account namespace, then the kubeconfig context's. */
  leaderElectionNamespace?: string;
  /**
   * --sharding <name>: run sharded controllers on every replica, each reconciling its part of the objects (one Lease
   * per replica in the leader election namespace, labelled with the name). Default: off.
   */
  sharding?: string;
  /** What sharding hashes: "uid" (default) or "namespace" (children share their parent's namespace). */
  shardingField: "uid" | "namespace";
  /** How to reach the API server: --kubeconfig (else $KUBECONFIG, ~/.kube/config, in-cluster) and --kube-context. */
  kube: LoadKubeClientOptions;
  /** How long in-flight reconciles may take once stopping starts. Default 30 s. */
  gracefulShutdownTimeoutMs: number;
  /** --help was given: print managerUsage() and exit. */
  help: boolean;
}

interface Flag {
  name: string;
  env: string;
  type: "string" | "boolean";
  help: string;
}

const flags: readonly Flag[] = [
  {
    name: "metrics-bind-address",
    env: "METRICS_BIND_ADDRESS",
    type: "string",
    help: 'where /metrics listens: ":8443", "127.0.0.1:8443", or "0" for off (default ":8443", ":8080" if not secure)',
  },
  {
    name: "metrics-secure",
    env: "METRICS_SECURE",
    type: "string",
    help: "serve /metrics over HTTPS to authenticated, authorised callers only; false for plain HTTP (default true)",
  },
  {
    name: "metrics-cert-path",
    env: "METRICS_CERT_PATH",
    type: "string",
    help: "folder with tls.crt and tls.key for the metrics server (default: a self-signed certificate)",
  },
  {
    name: "webhook-cert-path",
    env: "WEBHOOK_CERT_PATH",
    type: "string",
    help: "folder with tls.crt and tls.key for the webhook server (default: <tmp>/k8s-webhook-server/serving-certs)",
  },
  {
    name: "watch-namespaces",
    env: "WATCH_NAMESPACES",
    type: "string",
    help: "comma-separated namespaces to serve (default: all namespaces)",
  },
  {
    name: "health-probe-bind-address",
    env: "HEALTH_PROBE_BIND_ADDRESS",
    type: "string",
    help: 'where /healthz and /readyz listen, or "0" for off (default ":8081")',
  },
  {
    name: "leader-elect",
    env: "LEADER_ELECT",
    type: "boolean",
    help: "run the controllers only while holding the leader Lease (default false)",
  },
  {
    name: "leader-election-id",
    env: "LEADER_ELECTION_ID",
    type: "string",
    help: "the Lease name (default: the first controller's name)",
  },
  {
    name: "leader-election-namespace",
    env: "POD_NAMESPACE",
    type: "string",
    help: "the Lease namespace (default: the pod's namespace)",
  },
  {
    name: "sharding",
    env: "SHARDING",
    type: "string",
    help: "shard the controllers across replicas: the sharding group's name (default: off, one leader reconciles all)",
  },
  {
    name: "sharding-field",
    env: "SHARDING_FIELD",
    type: "string",
    help: 'what --sharding hashes: "uid" or "namespace" (when children live in their parent\'s namespace); default uid',
  },
  {
    name: "graceful-shutdown-timeout",
    env: "GRACEFUL_SHUTDOWN_TIMEOUT",
    type: "string",
    help: 'how long in-flight reconciles may run once stopping, e.g. "30s" (default "30s")',
  },
  {
    name: "kubeconfig",
    env: "KUBECONFIG",
    type: "string",
    help: "kubeconfig file (default $KUBECONFIG, ~/.kube/config, then the in-cluster service account)",
  },
  {
    name: "kube-context",
    env: "KUBE_CONTEXT",
    type: "string",
    help: "kubeconfig context (default its current-context); --context is the same flag",
  },
];

/** The --help text. */
export function managerUsage(program = "operator"): string {
  const width = Math.max(...flags.map((f) => f.name.length + (f.type === "string" ? 8 : 0)));
  const lines = flags.map(
    (f) => `  --${(f.name + (f.type === "string" ? " <value>" : "")).padEnd(width + 2)} ${f.help}; env ${f.env}`,
  );
  return `Usage: ${program} [flags]\n\n${lines.join("\n")}\n  --help${" ".repeat(width - 2)} show this text\n`;
}

/**
 * Parses argv (without node and the script) and env. Unknown flags and malformed values throw an Error naming the flag
 * or variable. KUBECONFIG keeps its usual meaning (loadKubeClient reads it, and it may list several files), so only
 * --kubeconfig sets `kube.kubeconfig`.
 */
export function parseManagerOptions(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): ManagerOptions {
  const options = Object.fromEntries([
    ...flags.map((f) => [f.name, { type: f.type }]),
    ["help", { type: "boolean" }],
    // kubectl's (and crdgen generate's) other spelling of --kube-context, accepted too.
    ["context", { type: "string" }],
  ]) as Record<string, { type: "string" | "boolean" }>;
  let values: Record<string, string | boolean | undefined>;
  try {
    // --metrics-secure alone means true, as Go's flag package reads a bare boolean flag.
    const args = argv.map((a) => (a === "--metrics-secure" ? "--metrics-secure=true" : a));
    values = parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n\n${managerUsage()}`, { cause: error });
  }
  const string = (name: string): string | undefined => {
    const flag = values[name];
    if (typeof flag === "string") return flag;
    const variable = flags.find((f) => f.name === name)!.env;
    return name === "kubeconfig" ? undefined : env[variable] || undefined;
  };
  const secureValue = string("metrics-secure");
  const metricsSecure =
    secureValue === undefined
      ? true
      : parseBool(secureValue, values["metrics-secure"] ? "--metrics-secure" : "METRICS_SECURE");
  const metricsCertPath = string("metrics-cert-path");
  const webhookCertPath = string("webhook-cert-path");
  const metricsBindAddress = string("metrics-bind-address") ?? (metricsSecure ? ":8443" : ":8080");
  const watchNamespaces = parseNamespaces(string("watch-namespaces"));
  const healthProbeBindAddress = string("health-probe-bind-address") ?? ":8081";
  parseBindAddress(metricsBindAddress, "--metrics-bind-address");
  parseBindAddress(healthProbeBindAddress, "--health-probe-bind-address");
  const shutdown = string("graceful-shutdown-timeout");
  const kubeconfig = string("kubeconfig");
  const context = contextFlag(values["context"], values["kube-context"]) ?? string("kube-context");
  const id = string("leader-election-id");
  const namespace = string("leader-election-namespace");
  const { sharding, shardingField } = parseSharding(string("sharding"), string("sharding-field"));
  return {
    metricsBindAddress,
    metricsSecure,
    ...(metricsCertPath !== undefined ? { metricsCertPath } : {}),
    ...(webhookCertPath !== undefined ? { webhookCertPath } : {}),
    watchNamespaces,
    healthProbeBindAddress,
    leaderElect:
      values["leader-elect"] === true ||
      (values["leader-elect"] === undefined && parseBool(env["LEADER_ELECT"], "LEADER_ELECT")),
    ...(id !== undefined ? { leaderElectionId: id } : {}),
    ...(namespace !== undefined ? { leaderElectionNamespace: namespace } : {}),
    ...(sharding !== undefined ? { sharding } : {}),
    shardingField,
    kube: { ...(kubeconfig !== undefined ? { kubeconfig } : {}), ...(context !== undefined ? { context } : {}) },
    gracefulShutdownTimeoutMs:
      shutdown === undefined
        ? defaultGracefulShutdownTimeoutMs
        : parseDuration(shutdown, "--graceful-shutdown-timeout"),
    help: values["help"] === true,
  };
}

/** --sharding (a name that prefixes Lease names) and --sharding-field. */
function parseSharding(
  sharding: string | undefined,
  field = "uid",
): Pick<ManagerOptions, "sharding" | "shardingField"> {
  if (sharding !== undefined && !/^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$/.test(sharding))
    throw new Error(`--sharding: "${sharding}" is not a name of at most 40 lower-case letters, digits and dashes`);
  if (field !== "uid" && field !== "namespace") throw new Error(`--sharding-field: "${field}" is not uid or namespace`);
  return { ...(sharding !== undefined ? { sharding } : {}), shardingField: field };
}

/** --context, kubectl's spelling of --kube-context: the same setting, so the two flags may not differ. */
function contextFlag(context: unknown, kubeContext: unknown): string | undefined {
  if (typeof context !== "string") return undefined;
  if (typeof kubeContext === "string" && kubeContext !== context)
    throw new Error("--kube-context and --context differ: give one");
  return context;
}

export interface BindAddress {
  /** undefined: every interface. */
  host?: string;
  port: number;
}

/** `:8080`, `0.0.0.0:8080`, `[::1]:8080` → host and port; "0" or "" → undefined (off), as controller-runtime's "0". */
export function parseBindAddress(address: string, what = "bind address"): BindAddress | undefined {
  if (address === "0" || address === "") return undefined;
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(address);
  const port = Number(match?.[3]);
  if (!match || port > 65535) throw new Error(`${what}: "${address}" is not host:port, :port or "0"`);
  const host = match[1] ?? match[2];
  return host ? { host, port } : { port };
}

/** "a, b" → ["a", "b"]; each must be a DNS-1123 label, as a namespace name is. */
function parseNamespaces(value: string | undefined): string[] {
  const names = (value ?? "")
    .split(",")
    .map((n) => n.trim())
    .filter((n) => n !== "");
  for (const name of names)
    if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(name))
      throw new Error(`--watch-namespaces: "${name}" is not a namespace name (a DNS-1123 label)`);
  return [...new Set(names)];
}

function parseBool(value: string | undefined, what: string): boolean {
  if (value === undefined || value === "") return false;
  if (/^(true|1|yes)$/i.test(value)) return true;
  if (/^(false|0|no)$/i.test(value)) return false;
  throw new Error(`${what}: "${value}" is not true or false`);
}

/** Go-style durations as flags use them: "30s", "1m30s", "500ms"; a bare number is seconds. */
function parseDuration(value: string, what: string): number {
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  const rest = value.replace(/(\d+(?:\.\d+)?)(ms|s|m|h)/g, (_, n: string, unit: string) => {
    total += Number(n) * units[unit]!;
    return "";
  });
  if (rest !== "" || value === "") throw new Error(`${what}: "${value}" is not a duration such as 30s or 1m`);
  return total;
}

/**
 * parseManagerOptions for a main(): `--help` prints the usage and exits 0; a bad flag or variable prints the error
 * (with the usage) and exits 2, as Go's flag package does, instead of a stack trace.
 */
export function commandLineOptions(
  program = "operator",
  argv: readonly string[] = process.argv.slice(2),
  env: Readonly<Record<string, string | undefined>> = process.env,
): ManagerOptions {
  let options: ManagerOptions;
  try {
    options = parseManagerOptions(argv, env);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(
      `${program}: ${message.includes("Usage:") ? message.replace(/Usage: operator/, `Usage: ${program}`) : `${message}\n\n${managerUsage(program)}`}\n`,
    );
    process.exit(2);
  }
  if (options.help) {
    process.stdout.write(managerUsage(program));
    process.exit(0);
  }
  return options;
}
