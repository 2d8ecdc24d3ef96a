// Credentials (a bearer token, a password) never travel over plain http:// unless the kubeconfig says so for that
// server. client-go and kubectl send them over http without a word, and client-node lets insecure-skip-tls-verify or a
// proxy-url through; neither says anything about clear text, so neither counts here.
import type { Cluster, User } from "@kubernetes/client-node";
import { KubeconfigError } from "./kubeconfig-error.js";
import { defaultKubeconfigFiles, readKubeconfigDocument } from "./kubeconfig-files.js";

/**
 * The kubeconfig cluster extension that opts one server in. The kubeconfig format keeps tool-specific settings in a
 * cluster's `extensions` (kubectl keeps them when it rewrites the file); the extension repeats the server URL, so
 * pointing the cluster entry at another server later does not carry the opt-in along:
 *
 * ```yaml
 * clusters:
 * - name: local
 *   cluster:
 *     server: http://127.0.0.1:8080
 *     extensions:
 *     - name: crdgen.dev/credentials-over-http
 *       extension: {server: "http://127.0.0.1:8080"}
 * ```
 */
export const CREDENTIALS_OVER_HTTP_EXTENSION = "crdgen.dev/credentials-over-http";

/**
 * The http:// servers the kubeconfig opts in with the crdgen.dev/credentials-over-http cluster extension: those of
 * `kubeconfig` when given, else of the files kubectl reads ($KUBECONFIG's list, else ~/.kube/config).
 * client-node's KubeConfig drops a cluster's extensions when it loads a file, so they are read here; pass the
 * result as the HttpKubeClient option allowCredentialsOverHttp (loadKubeClient does).
 */
export function kubeconfigCredentialsOverHttp(kubeconfig?: string): string[] {
  const files = kubeconfig !== undefined ? [kubeconfig] : defaultKubeconfigFiles();
  return files.flatMap((file) => credentialsOverHttpIn(readKubeconfigDocument(file)));
}

/** The http:// servers one parsed kubeconfig document opts in (see kubeconfigCredentialsOverHttp). */
export function credentialsOverHttpIn(doc: unknown): string[] {
  const servers: string[] = [];
  for (const entry of arrayAt(doc, "clusters")) {
    const cluster = fieldOf(entry, "cluster");
    const server = fieldOf(cluster, "server");
    if (typeof server !== "string") continue;
    const optedIn = arrayAt(cluster, "extensions").some(
      (ext) =>
        fieldOf(ext, "name") === CREDENTIALS_OVER_HTTP_EXTENSION &&
        sameOrigin(fieldOf(fieldOf(ext, "extension"), "server"), server),
    );
    if (optedIn) servers.push(server);
  }
  return servers;
}

/** Throws unless credentials may be sent to the cluster's server: it is https, or listed in allowed (by origin). */
export function assertCredentialsMayTravel(cluster: Cluster, user: User | null, allowed: readonly string[]): void {
  if (new URL(cluster.server).protocol !== "http:") return;
  if (allowed.some((a) => sameOrigin(a, cluster.server))) return;
  const who = user ? `user "${user.name}"` : "the user";
  throw new KubeconfigError(
    `kubeconfig: cluster "${cluster.name}" has the plain http server ${cluster.server}: refusing to send the ` +
      `credentials of ${who} (a bearer token or password) in clear text. Use an https:// server, or opt in for this ` +
      `server with the cluster extension {name: ${CREDENTIALS_OVER_HTTP_EXTENSION}, extension: {server: ` +
      `"${cluster.server}"}} (in code: the HttpKubeClient option allowCredentialsOverHttp: ["${cluster.server}"]); ` +
      `insecure-skip-tls-verify and proxy-url are no opt-in`,
  );
}

/** The kubeconfig user authenticates with something sent in a header: a token, a password, an auth provider, exec. */
export function userHasHeaderCredentials(user: User | null): boolean {
  if (!user) return false;
  return Boolean(user.token || user.username || user.password || user.authProvider || user.exec);
}

function sameOrigin(a: unknown, b: string): boolean {
  if (typeof a !== "string") return false;
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false; // not a URL: no opt-in
  }
}

function fieldOf(value: unknown, key: string): unknown {
  return value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
}

function arrayAt(value: unknown, key: string): unknown[] {
  const v = fieldOf(value, key);
  return Array.isArray(v) ? v : [];
}
