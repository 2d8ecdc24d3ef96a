// Reads kubeconfig files (and the pod's service account) into client-node's Cluster/User/Context shapes with the
// `yaml` package. Why not client-node's KubeConfig: importing it loads client-node's whole generated API, about 70 MB
// of RSS in every operator process, for a few dozen lines of YAML reading.
import fs from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import path from "node:path";
import type { Cluster, Context, User } from "@kubernetes/client-node";
import type * as Yaml from "yaml";
import { KubeconfigError } from "./kubeconfig-error.js";

/**
 * Parses YAML with the `yaml` package, loaded for this call only: a kubeconfig is read at start, and the package
 * (about 0.6 MB of V8 heap) would stay for the process's life in every replica. What this call added to require's
 * cache is taken out again, and its require (the module record that lists what it loaded) goes with it; a `yaml`
 * that the program loaded before stays, the same instance. An operator in its Pod reads no YAML at all.
 */
function parseYaml(text: string): unknown {
  const requireCjs = createRequire(import.meta.url);
  const loadedBefore = new Set(Object.keys(requireCjs.cache));
  try {
    return (requireCjs("yaml") as typeof Yaml).parse(text);
  } finally {
    for (const file of Object.keys(requireCjs.cache))
      if (!loadedBefore.has(file)) Reflect.deleteProperty(requireCjs.cache, file);
  }
}

/** What a kubeconfig says, in client-node's shapes (KubeConfig.loadFromOptions takes the same). */
export interface KubeconfigData {
  clusters: Cluster[];
  users: User[];
  contexts: Context[];
  currentContext: string | undefined;
}

const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";
export const SERVICE_ACCOUNT_TOKEN = `${SERVICE_ACCOUNT_DIR}/token`;

/** The user's home folder: $HOME (else, on Windows, %USERPROFILE% or %HOMEDRIVE%%HOMEPATH%), if set. */
export function homeDir(): string | undefined {
  const env = process.env;
  const drivePath = env["HOMEDRIVE"] && env["HOMEPATH"] ? path.join(env["HOMEDRIVE"], env["HOMEPATH"]) : undefined;
  const candidates = process.platform === "win32" ? [env["HOME"], env["USERPROFILE"], drivePath] : [env["HOME"]];
  return candidates.find((dir): dir is string => Boolean(dir) && fs.existsSync(dir!));
}

/** The files kubectl reads without --kubeconfig: $KUBECONFIG's list, else ~/.kube/config when it exists. */
export function defaultKubeconfigFiles(): string[] {
  const env = process.env["KUBECONFIG"];
  if (env) return env.split(path.delimiter).filter((f) => f !== "");
  const home = homeDir();
  const file = home ? path.join(home, ".kube", "config") : undefined;
  return file && fs.existsSync(file) ? [file] : [];
}

/**
 * Reads and merges kubeconfig files as client-go does: the first file to set current-context wins, and the first
 * cluster, user or context of a name wins. Relative certificate, key and token paths are relative to their file.
 * The parsed documents come back too, for what client-node's shapes have no field for (cluster extensions).
 */
export function readKubeconfigFiles(files: readonly string[]): { data: KubeconfigData; documents: unknown[] } {
  const merged: KubeconfigData = { clusters: [], users: [], contexts: [], currentContext: undefined };
  const documents: unknown[] = [];
  for (const file of files) {
    const doc = readKubeconfigDocument(file);
    documents.push(doc);
    const one = kubeconfigOf(file, doc);
    merged.currentContext ??= one.currentContext;
    addNew(merged.clusters, one.clusters);
    addNew(merged.users, one.users);
    addNew(merged.contexts, one.contexts);
  }
  return { data: merged, documents };
}

/** A kubeconfig file parsed as YAML; an error names the file. */
export function readKubeconfigDocument(file: string): unknown {
  try {
    return parseYaml(fs.readFileSync(file, "utf8"));
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : e instanceof Error ? e.message : e;
    throw new KubeconfigError(`kubeconfig ${file}: ${String(why)}`, { cause: e });
  }
}

/** The pod's service account, as client-go's rest.InClusterConfig: token re-read from its file, the pod's CA. */
export function inClusterKubeconfig(root = SERVICE_ACCOUNT_DIR): KubeconfigData {
  const host = process.env["KUBERNETES_SERVICE_HOST"] ?? "";
  const port = process.env["KUBERNETES_SERVICE_PORT"] ?? "443";
  // client-node's choice, kept: these ports are plain http on a few local setups.
  const scheme = port === "80" || port === "8080" || port === "8001" ? "http" : "https";
  const namespaceFile = path.join(root, "namespace");
  const namespace = fs.existsSync(namespaceFile) ? fs.readFileSync(namespaceFile, "utf8").trim() : undefined;
  return {
    clusters: [
      {
        name: "inCluster",
        server: `${scheme}://${net.isIPv6(host) ? `[${host}]` : host}:${port}`,
        caFile: path.join(root, "ca.crt"),
        skipTLSVerify: false,
      },
    ],
    users: [
      { name: "inClusterUser", authProvider: { name: "tokenFile", config: { tokenFile: path.join(root, "token") } } },
    ],
    contexts: [
      { name: "inClusterContext", cluster: "inCluster", user: "inClusterUser", ...(namespace ? { namespace } : {}) },
    ],
    currentContext: "inClusterContext",
  };
}

function kubeconfigOf(file: string, doc: unknown): KubeconfigData {
  if (doc !== null && doc !== undefined && (typeof doc !== "object" || Array.isArray(doc)))
    throw new KubeconfigError(
      `kubeconfig ${file}: not a kubeconfig (a YAML mapping with clusters, users and contexts)`,
    );
  const dir = path.dirname(path.resolve(file));
  const at = (where: string, problem: string): Error => new KubeconfigError(`kubeconfig ${file}: ${where} ${problem}`);
  const current = fieldOf(doc, "current-context");
  return {
    clusters: listAt(file, doc, "clusters").map((entry, i) => readCluster(entry, `clusters[${i}]`, dir, at)),
    users: listAt(file, doc, "users").map((entry, i) => readUser(entry, `users[${i}]`, dir, at)),
    contexts: listAt(file, doc, "contexts").map((entry, i) => readContext(entry, `contexts[${i}]`, at)),
    currentContext: typeof current === "string" && current !== "" ? current : undefined,
  };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type Problem = (where: string, problem: string) => Error;

function readCluster(entry: unknown, where: string, dir: string, at: Problem): Cluster {
  const name = nameOf(entry, where, at);
  const c = mappingAt(entry, "cluster", where, at);
  const server = stringAt(c, "server", `${where}.cluster`, at);
  if (!server) throw at(`${where}.cluster.server`, "is missing");
  const cluster: Cluster = {
    name,
    server: server.replace(/\/$/, ""),
    skipTLSVerify: c["insecure-skip-tls-verify"] === true,
  };
  setString(cluster, "caData", c, "certificate-authority-data", `${where}.cluster`, at);
  setString(cluster, "caFile", c, "certificate-authority", `${where}.cluster`, at, dir);
  setString(cluster, "tlsServerName", c, "tls-server-name", `${where}.cluster`, at);
  setString(cluster, "proxyUrl", c, "proxy-url", `${where}.cluster`, at);
  return cluster;
}

function readUser(entry: unknown, where: string, dir: string, at: Problem): User {
  const name = nameOf(entry, where, at);
  const u = fieldOf(entry, "user") ?? {};
  if (typeof u !== "object" || Array.isArray(u)) throw at(`${where}.user`, "is not a mapping");
  const user: Mutable<User> = { name };
  setString(user, "certData", u, "client-certificate-data", `${where}.user`, at);
  setString(user, "certFile", u, "client-certificate", `${where}.user`, at, dir);
  setString(user, "keyData", u, "client-key-data", `${where}.user`, at);
  setString(user, "keyFile", u, "client-key", `${where}.user`, at, dir);
  setString(user, "token", u, "token", `${where}.user`, at);
  setString(user, "username", u, "username", `${where}.user`, at);
  setString(user, "password", u, "password", `${where}.user`, at);
  setString(user, "impersonateUser", u, "as", `${where}.user`, at);
  const tokenFile = stringAt(u, "token-file", `${where}.user`, at);
  if (!user.token && tokenFile) {
    // Read once at load, as client-node does.
    const file = path.resolve(dir, tokenFile);
    try {
      user.token = fs.readFileSync(file, "utf8").trim();
    } catch (e) {
      throw at(`${where}.user.token-file`, `${file}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  // Handed to client-node's own authenticators, which read them as the YAML has them.
  if (u["exec"] !== undefined && u["exec"] !== null) user.exec = u["exec"];
  if (u["auth-provider"] !== undefined && u["auth-provider"] !== null) user.authProvider = u["auth-provider"];
  return user;
}

function readContext(entry: unknown, where: string, at: Problem): Context {
  const name = nameOf(entry, where, at);
  const c = mappingAt(entry, "context", where, at);
  const cluster = stringAt(c, "cluster", `${where}.context`, at);
  if (!cluster) throw at(`${where}.context.cluster`, "is missing");
  // client-node types user as always there; a context without one has it undefined.
  const context: Mutable<Context> = {
    name,
    cluster,
    user: (stringAt(c, "user", `${where}.context`, at) || undefined) as string,
  };
  const namespace = stringAt(c, "namespace", `${where}.context`, at);
  if (namespace) context.namespace = namespace;
  return context;
}

function nameOf(entry: unknown, where: string, at: Problem): string {
  if (entry === null || typeof entry !== "object" || Array.isArray(entry)) throw at(where, "is not a mapping");
  const name = stringAt(entry, "name", where, at);
  if (!name) throw at(`${where}.name`, "is missing");
  return name;
}

/** entry[key], which must be a mapping. */
function mappingAt(entry: unknown, key: string, where: string, at: Problem): Record<string, unknown> {
  const v = fieldOf(entry, key);
  if (v === undefined || v === null) throw at(`${where}.${key}`, "is missing");
  if (typeof v !== "object" || Array.isArray(v)) throw at(`${where}.${key}`, "is not a mapping");
  return v;
}

function setString<T extends object>(
  target: T,
  key: keyof T & string,
  from: Record<string, unknown>,
  yamlKey: string,
  where: string,
  at: Problem,
  relativeTo?: string,
): void {
  const v = stringAt(from, yamlKey, where, at);
  if (v) (target as Record<string, unknown>)[key] = relativeTo !== undefined ? path.resolve(relativeTo, v) : v;
}

function stringAt(from: object, key: string, where: string, at: Problem): string | undefined {
  const v = (from as Record<string, unknown>)[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw at(`${where}.${key}`, `must be a string, got ${typeof v}`);
  return v;
}

function listAt(file: string, doc: unknown, key: string): unknown[] {
  const v = fieldOf(doc, key);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new KubeconfigError(`kubeconfig ${file}: ${key} must be a list`);
  return v;
}

function fieldOf(value: unknown, key: string): Record<string, unknown> | undefined | null {
  if (value === null || typeof value !== "object") return undefined;
  return (value as Record<string, unknown>)[key] as Record<string, unknown> | undefined | null;
}

function addNew<T extends { name: string }>(into: T[], from: readonly T[]): void {
  for (const item of from) if (!into.some((x) => x.name === item.name)) into.push(item);
}
