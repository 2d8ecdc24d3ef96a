// Who may read /metrics (controller-runtime pkg/metrics/filters WithAuthenticationAndAuthorization): the caller's
// bearer token is checked with a TokenReview, then the user it names with a SubjectAccessReview for the non-resource
// URL of the request and its verb. Answers are cached as controller-runtime's delegating authenticator and
// authorizer do, so a scrape every few seconds costs the API server two requests a minute, not two per scrape.
import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { LRUCache } from "lru-cache";
import type { KubeClient } from "../client/kube-client.js";

/** What a metrics request is answered with when it may not proceed; undefined when it may. */
export interface Refusal {
  status: 401 | 403 | 500;
  /** controller-runtime's wording. */
  message: string;
  /** Why the API server could not be asked (status 500), for the log; never sent to the caller. */
  cause?: unknown;
}

export type MetricsAuthorizer = (req: IncomingMessage) => Promise<Refusal | undefined>;

export interface MetricsAuthOptions {
  /** A successful TokenReview is trusted this long. Default 1 minute (controller-runtime's CacheTTL). */
  authenticatedTtlMs?: number;
  /** An allowed SubjectAccessReview. Default 5 minutes (AllowCacheTTL). */
  allowedTtlMs?: number;
  /** A denied SubjectAccessReview. Default 30 s (DenyCacheTTL). */
  deniedTtlMs?: number;
  /** Entries each cache keeps at most, so tokens sent by a flood of callers cannot grow memory. Default 1024. */
  maxEntries?: number;
}

interface UserInfo {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

interface TokenReview {
  status?: { authenticated?: boolean; user?: UserInfo; error?: string };
}

interface SubjectAccessReview {
  status?: { allowed?: boolean; denied?: boolean; reason?: string };
}

const unauthorized: Refusal = { status: 401, message: "Unauthorized" };

/**
 * The check the secure metrics server runs before answering: 401 without a valid bearer token, 403 when its user may
 * not `get` the path (RBAC: a ClusterRole with nonResourceURLs ["/metrics"], verbs ["get"]), 500 when the API server
 * cannot be asked. Only successful TokenReviews are cached (a rejected token is asked about again: it may be a fresh
 * one the API server has not seen yet); SubjectAccessReviews are cached either way, a denial more briefly.
 */
export function metricsAuthorizer(kube: KubeClient, options: MetricsAuthOptions = {}): MetricsAuthorizer {
  const max = options.maxEntries ?? 1024;
  const users = new LRUCache<string, UserInfo>({ max, ttl: options.authenticatedTtlMs ?? 60_000 });
  const decisions = new LRUCache<string, boolean>({ max, ttl: options.allowedTtlMs ?? 300_000 });
  const deniedTtl = options.deniedTtlMs ?? 30_000;

  const authenticate = async (token: string): Promise<UserInfo | undefined> => {
    // The cache key is a digest: the tokens themselves are not kept in memory.
    const key = createHash("sha256").update(token).digest("hex");
    const cached = users.get(key);
    if (cached) return cached;
    const review = await kube.request<TokenReview>({
      method: "POST",
      path: "/apis/authentication.k8s.io/v1/tokenreviews",
      body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token } },
    });
    const user = review.status?.authenticated === true ? review.status.user : undefined;
    if (user?.username) users.set(key, user);
    return user?.username ? user : undefined;
  };

  const authorize = async (user: UserInfo, verb: string, path: string): Promise<boolean> => {
    const key = JSON.stringify([user.username, user.uid, user.groups, user.extra, verb, path]);
    const cached = decisions.get(key);
    if (cached !== undefined) return cached;
    const review = await kube.request<SubjectAccessReview>({
      method: "POST",
      path: "/apis/authorization.k8s.io/v1/subjectaccessreviews",
      body: {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: {
          user: user.username,
          ...(user.uid ? { uid: user.uid } : {}),
          ...(user.groups ? { groups: user.groups } : {}),
          ...(user.extra ? { extra: user.extra } : {}),
          nonResourceAttributes: { path, verb },
        },
      },
    });
    const allowed = review.status?.allowed === true && review.status.denied !== true;
    decisions.set(key, allowed, allowed ? {} : { ttl: deniedTtl });
    return allowed;
  };

  return async (req) => {
    const token = bearerToken(req.headers.authorization);
    if (token === undefined) return unauthorized;
    let user: UserInfo | undefined;
    try {
      user = await authenticate(token);
    } catch (cause) {
      return { status: 500, message: "Authentication failed", cause };
    }
    if (!user) return unauthorized;
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    try {
      if (await authorize(user, (req.method ?? "GET").toLowerCase(), path)) return undefined;
    } catch (cause) {
      return { status: 500, message: `Authorization for user ${user.username} failed`, cause };
    }
    return { status: 403, message: `Authorization denied for user ${user.username}` };
  };
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive, as the API server reads it). */
function bearerToken(header: string | undefined): string | undefined {
  const match = /^bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1];
}
