// The part of client-node's KubeConfig that HttpKubeClient uses, without loading client-node: importing its
// KubeConfig loads client-node's whole generated API (about 70 MB of RSS). Certificates, tokens, basic auth,
// impersonation and the pod's service account token are applied here; the rarer authenticators (exec plugins, the
// azure/gcp/oidc auth providers) and proxy-url are client-node's, loaded only when the kubeconfig uses them.
import fs from "node:fs";
import type https from "node:https";
import type { Cluster, Context, KubeConfig, User } from "@kubernetes/client-node";
import type { KubeconfigData } from "./kubeconfig-files.js";

/** What HttpKubeClient needs of a kubeconfig: client-node's KubeConfig has it, and so has LightKubeConfig. */
export type KubeConfigView = Pick<
  KubeConfig,
  "getCurrentCluster" | "getCurrentUser" | "getCurrentContext" | "getContextObject" | "applyToHTTPSOptions"
>;

// As client-node's FileAuth: a service-account token file is re-read at most once a minute (the kubelet rotates it).
const TOKEN_FILE_REREAD_MS = 60_000;

export class LightKubeConfig implements KubeConfigView {
  private currentContext: string;
  private clientNode: Promise<KubeConfig> | undefined;
  private readonly tokenFiles = new Map<string, { token: string; readAt: number }>();

  constructor(private readonly data: KubeconfigData) {
    this.currentContext = data.currentContext ?? "";
  }

  getCurrentContext(): string {
    return this.currentContext;
  }

  setCurrentContext(name: string): void {
    this.currentContext = name;
  }

  getContextObject(name: string): Context | null {
    return this.data.contexts.find((c) => c.name === name) ?? null;
  }

  getCurrentCluster(): Cluster | null {
    const context = this.getContextObject(this.currentContext);
    return (context && this.data.clusters.find((c) => c.name === context.cluster)) ?? null;
  }

  getCurrentUser(): User | null {
    const context = this.getContextObject(this.currentContext);
    return (context?.user !== undefined && this.data.users.find((u) => u.name === context.user)) || null;
  }

  /** Sets TLS material and credentials on opts, as KubeConfig.applyToHTTPSOptions does (which see). */
  async applyToHTTPSOptions(opts: https.RequestOptions): Promise<void> {
    const cluster = this.getCurrentCluster();
    const user = this.getCurrentUser();
    if (needsClientNode(cluster, user)) {
      const kc = await this.loadClientNode();
      kc.setCurrentContext(this.currentContext);
      await kc.applyToHTTPSOptions(opts);
      return;
    }
    if (cluster?.skipTLSVerify) opts.rejectUnauthorized = false;
    if (cluster?.tlsServerName) opts.servername = cluster.tlsServerName;
    const ca = cluster && fileOrData(cluster.caFile, cluster.caData);
    if (ca) opts.ca = ca;
    if (!user) return;
    const cert = fileOrData(user.certFile, user.certData);
    if (cert) opts.cert = cert;
    const key = fileOrData(user.keyFile, user.keyData);
    if (key) opts.key = key;
    const headers = (opts.headers ??= {}) as Record<string, string | string[] | number>;
    if (user.impersonateUser) headers["Impersonate-User"] = user.impersonateUser;
    const tokenFile = tokenFileOf(user);
    const token = user.token || (tokenFile !== undefined ? this.readTokenFile(tokenFile) : undefined);
    if (token) headers["Authorization"] = `Bearer ${token}`;
    if (user.username) opts.auth = `${user.username}:${user.password ?? ""}`;
  }

  private readTokenFile(file: string): string {
    const cached = this.tokenFiles.get(file);
    if (cached && Date.now() - cached.readAt <= TOKEN_FILE_REREAD_MS) return cached.token;
    const token = fs.readFileSync(file, "utf8").trim();
    this.tokenFiles.set(file, { token, readAt: Date.now() });
    return token;
  }

  // One KubeConfig for the client's life, so an exec plugin's cached credential is reused until it expires.
  private loadClientNode(): Promise<KubeConfig> {
    this.clientNode ??= import("@kubernetes/client-node").then(({ KubeConfig }) => {
      const kc = new KubeConfig();
      const { clusters, users, contexts } = this.data;
      kc.loadFromOptions({ clusters, users, contexts, currentContext: this.currentContext });
      return kc;
    });
    return this.clientNode;
  }
}

/** An exec plugin, an auth provider other than a token file, or a proxy: only client-node implements them. */
function needsClientNode(cluster: Cluster | null, user: User | null): boolean {
  if (cluster?.proxyUrl) return true;
  if (!user) return false;
  return Boolean(user.exec) || (Boolean(user.authProvider) && tokenFileOf(user) === undefined);
}

function tokenFileOf(user: User): string | undefined {
  const provider = user.authProvider as
    { name?: unknown; config?: { tokenFile?: unknown; exec?: unknown } } | undefined;
  const file = provider?.config?.tokenFile;
  if (typeof file !== "string" || file === "" || provider?.config?.exec !== undefined) return undefined;
  // client-node asks these authenticators before its token-file one.
  return ["azure", "gcp", "exec"].includes(String(provider?.name)) ? undefined : file;
}

function fileOrData(file: string | undefined, data: string | undefined): Buffer | undefined {
  if (file) return fs.readFileSync(file);
  if (data) return Buffer.from(data, "base64");
  return undefined;
}
