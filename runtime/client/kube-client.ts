// KubeClient, what every part of the runtime talks to the API server through, and HttpKubeClient, its implementation:
// JSON requests and NDJSON watches over HTTP(S), configured and authenticated by a KubeConfig.
import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import path from "node:path";
import { ApiError, TransportError } from "./api-error.js";
import { metaStringProblem, parseJson } from "./decode-json.js";
import {
  SERVICE_ACCOUNT_TOKEN,
  defaultKubeconfigFiles,
  inClusterKubeconfig,
  readKubeconfigFiles,
} from "./kubeconfig-files.js";
import { KubeconfigError } from "./kubeconfig-error.js";
import { LightKubeConfig, type KubeConfigView } from "./light-kube-config.js";
import { LineSplitter, LineTooLongError } from "./ndjson.js";
import { requestMetrics } from "./request-metrics.js";
import { assertCredentialsMayTravel, credentialsOverHttpIn, userHasHeaderCredentials } from "./plain-http.js";
import { type BodyReading, readList, readText } from "./response-body.js";
import type { KubernetesObject, Status, WatchEvent } from "./types.js";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** undefined/null are skipped, booleans and numbers stringified, arrays repeat the key (`dryRun=All&dryRun=...`). */
export type QueryValue = string | number | boolean | undefined | null | ReadonlyArray<string | number | boolean>;
export type Query = Readonly<Record<string, QueryValue>>;

export interface RequestOptions {
  method: HttpMethod;
  /** Absolute API path, e.g. `/apis/apps/v1/namespaces/default/deployments`; appended to the server URL's path. */
  path: string;
  query?: Query;
  /** Serialized with JSON.stringify. */
  body?: unknown;
  /** Defaults to application/json when there is a body. */
  contentType?: string;
  signal?: AbortSignal;
  /**
   * The answer is a list (`{"items": [...]}`): decode it while it arrives, each element of items as soon as it is
   * complete, passed through this function (see ListDecoder). Every KubeClient (also FakeCluster's) applies it.
   */
  listItem?: (item: unknown) => unknown;
}

export interface WatchOptions {
  path: string;
  /** `watch=true` is added unless the query sets `watch` itself. */
  query?: Query;
  /** Aborting ends the iteration cleanly (no error). */
  signal?: AbortSignal;
  /**
   * Longest silence tolerated on an open watch before it is treated as a dead connection and the iteration
   * throws TransportError(code "IdleTimeout"). Default: the larger of 5 min and query.timeoutSeconds + 60 s,
   * because the server stays silent on a quiet resource until timeoutSeconds (bookmarks are not guaranteed).
   */
  idleTimeoutMs?: number;
}

export interface KubeClientOptions {
  /**
   * Longest silence while waiting for (or reading) a non-watch response. It bounds half-open connections,
   * not the request's total duration. Default 90 s: above the API server's own 60 s request timeout,
   * so the server's 504 arrives first.
   */
  requestIdleTimeoutMs?: number;
  userAgent?: string;
  /**
   * Act as another identity on every request (Impersonate-User, Impersonate-Group, Impersonate-Uid headers, as
   * kubectl --as / --as-group). The kubeconfig's own user needs the `impersonate` verb on users/groups/uids. A service
   * account is the user `system:serviceaccount:<namespace>:<name>`; see serviceAccountUser.
   */
  impersonate?: Impersonation;
  /**
   * Called once per request (and per watch) when the response status arrives, before the body is read; also for
   * non-2xx answers. For instrumentation: request counts by code, or a test recording which verbs an operator uses.
   * It must not throw.
   */
  onResponse?: (response: ResponseInfo) => void;
  /**
   * Largest response body (LIST pages included) read, in bytes: as received and, when gzip-encoded, once decoded; a
   * larger one fails with TransportError ResponseTooLarge as soon as the limit is crossed. Default 2 GiB, far above
   * any real LIST page (10,000 objects are about 8 MB). A body that is not a LIST is also bounded by the longest
   * string JavaScript can hold (about 512 MiB).
   */
  maxResponseBytes?: number;
  /**
   * Largest watch event (one line of the stream), in bytes. Default 16 MiB, client-go's limit for one streamed
   * object; a longer line fails the watch with TransportError ResponseTooLarge before the rest of it is read.
   */
  maxWatchEventBytes?: number;
  /**
   * http:// servers this client may send credentials (a bearer token, a password) to in clear text, compared by origin
   * (scheme, host and port). Without it, a plain http server with credentials is refused. loadKubeClient fills it from
   * the kubeconfig's crdgen.dev/credentials-over-http cluster extensions (see kubeconfigCredentialsOverHttp).
   */
  allowCredentialsOverHttp?: readonly string[];
}

/** What onResponse sees of one exchange. */
export interface ResponseInfo {
  method: HttpMethod;
  /** The API path as given (without the server URL's own path prefix or the query). */
  path: string;
  query: Query | undefined;
  /** The request's Content-Type, e.g. application/apply-patch+yaml for server-side apply. */
  contentType: string | undefined;
  status: number;
}

export interface Impersonation {
  user: string;
  /** Without groups the API server adds only system:authenticated (and, for a service account, its SA groups). */
  groups?: readonly string[];
  uid?: string;
}

/** The user name a service account authenticates as (and the one to impersonate it with). */
export function serviceAccountUser(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

export interface LoadKubeClientOptions extends KubeClientOptions {
  /** A context of the kubeconfig; default its current-context. */
  context?: string;
  /** A kubeconfig file; default $KUBECONFIG (which may list several files), then ~/.kube/config, then in-cluster. */
  kubeconfig?: string;
}

const DEFAULT_REQUEST_IDLE_MS = 90_000;
const DEFAULT_MAX_RESPONSE_BYTES = 2 * 1024 ** 3;
// client-go's streaming decoder (apimachinery runtime/serializer/streaming) refuses larger objects.
const DEFAULT_MAX_WATCH_EVENT_BYTES = 16 * 1024 ** 2;
// Node's agent closes a pooled socket idle this long (busy sockets, e.g. watches, are not affected). Kept under
// the API server's 90 s idle timeout so a request rarely picks a socket the server is closing.
const FREE_SOCKET_TIMEOUT_MS = 30_000;

/**
 * The API server as the runtime sees it: one JSON request, one watch stream. ResourceClient, generated clients,
 * informers, the event recorder and leader election use only this, so a fake (runtime/testing's FakeCluster) can
 * stand in for the server. loadKubeClient returns the HTTP implementation.
 */
export interface KubeClient {
  /** Sends one request; resolves with the decoded JSON body (undefined if empty). Non-2xx throws ApiError. */
  request<T>(opts: RequestOptions): Promise<T>;
  /** Watches opts.path: watch events until the server closes the stream or opts.signal aborts. */
  watch<T extends KubernetesObject>(opts: WatchOptions): AsyncIterable<WatchEvent<T>>;
  /** The namespace of the current context (in-cluster: the pod's namespace), if any. */
  readonly defaultNamespace: string | undefined;
  /** Releases connections; in-flight requests are cut. */
  close(): void;
}

/**
 * A thin, typed-by-caller HTTP client for the Kubernetes API. Authentication is re-applied from the KubeConfig
 * on every request (service-account tokens and exec credentials rotate); connections are kept alive and reused.
 * Bodies are bounded (maxResponseBytes, maxWatchEventBytes), credentials never go to a plain http server that is not
 * opted in (plain-http.ts), and JSON is decoded by parseJson (decode-json.ts: what happens to integers beyond 2^53).
 */
export class HttpKubeClient implements KubeClient {
  /** client-node's KubeConfig when made by fromKubeConfig with one; loadKubeClient's own lighter reader otherwise. */
  readonly kubeConfig: KubeConfigView;
  private readonly requestIdleTimeoutMs: number;
  private readonly userAgent: string;
  private readonly impersonate: Impersonation | undefined;
  private readonly onResponse: ((response: ResponseInfo) => void) | undefined;
  private readonly maxResponseBytes: number;
  private readonly maxWatchEventBytes: number;
  private readonly allowCredentialsOverHttp: readonly string[];
  // One keep-alive agent per TLS identity; a new one is made only when CA/cert/key/verification change.
  private agent: { fingerprint: string; agent: http.Agent } | undefined;
  private readonly retiredAgents: http.Agent[] = [];

  private constructor(kc: KubeConfigView, opts: KubeClientOptions) {
    this.kubeConfig = kc;
    this.requestIdleTimeoutMs = opts.requestIdleTimeoutMs ?? DEFAULT_REQUEST_IDLE_MS;
    this.userAgent = opts.userAgent ?? `crdgen-runtime (node ${process.version})`;
    if (opts.impersonate !== undefined && !opts.impersonate.user)
      throw new Error("KubeClient: impersonate.user must not be empty");
    this.impersonate = opts.impersonate;
    this.onResponse = opts.onResponse;
    this.maxResponseBytes = positive("maxResponseBytes", opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
    this.maxWatchEventBytes = positive("maxWatchEventBytes", opts.maxWatchEventBytes ?? DEFAULT_MAX_WATCH_EVENT_BYTES);
    this.allowCredentialsOverHttp = opts.allowCredentialsOverHttp ?? [];
  }

  /** The identity this client impersonates, if any. */
  get impersonation(): Impersonation | undefined {
    return this.impersonate;
  }

  /** kc: client-node's KubeConfig, or anything with the methods of it this client calls (KubeConfigView). */
  static fromKubeConfig(kc: KubeConfigView, opts: KubeClientOptions = {}): HttpKubeClient {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new KubeconfigError(`kubeconfig: context "${kc.getCurrentContext()}" has no cluster`);
    // Fail now rather than on the first request: a malformed URL; plain http, which client-node only allows with
    // insecure-skip-tls-verify or a proxy; credentials for a plain http server that is not opted in (plain-http.ts).
    const url = new URL(cluster.server);
    if (url.protocol === "http:" && !cluster.skipTLSVerify && !cluster.proxyUrl) {
      throw new KubeconfigError(
        `kubeconfig: cluster "${cluster.name}" uses http:// without insecure-skip-tls-verify, which client-node refuses`,
      );
    }
    const user = kc.getCurrentUser();
    if (userHasHeaderCredentials(user)) assertCredentialsMayTravel(cluster, user, opts.allowCredentialsOverHttp ?? []);
    return new HttpKubeClient(kc, opts);
  }

  /** The server URL of the current context. */
  get server(): string {
    return this.kubeConfig.getCurrentCluster()?.server ?? "";
  }

  /** The namespace set in the current context (in-cluster: the pod's namespace), if any. */
  get defaultNamespace(): string | undefined {
    return this.kubeConfig.getContextObject(this.kubeConfig.getCurrentContext())?.namespace?.trim() || undefined;
  }

  /** Sends one request; resolves with the decoded JSON body (undefined if empty). Non-2xx throws ApiError. */
  async request<T>(opts: RequestOptions): Promise<T> {
    const started = performance.now();
    try {
      return await this.requestOnce<T>(opts);
    } finally {
      const host = this.serverHost();
      if (host !== undefined) requestMetrics().requestLatency(opts.method, host, (performance.now() - started) / 1000);
    }
  }

  private async requestOnce<T>(opts: RequestOptions): Promise<T> {
    const { method, path: apiPath, signal } = opts;
    const ex = await this.open(
      method,
      apiPath,
      opts.query,
      opts.body,
      opts.contentType,
      signal,
      this.requestIdleTimeoutMs,
      true,
    );
    try {
      const status = ex.res.statusCode ?? 0;
      const reading = this.bodyReading(method, apiPath, ex.idle);
      if (opts.listItem && status >= 200 && status < 300) return (await readList(ex.res, reading, opts.listItem)) as T;
      const text = await readText(ex.res, reading);
      if (status < 200 || status >= 300) throw apiError(method, apiPath, ex.res, text);
      if (text.trim() === "") return undefined as T;
      let body: unknown;
      try {
        body = parseJson(text);
      } catch (cause) {
        throw new TransportError(method, apiPath, "response body is not JSON", { cause, code: "MalformedResponse" });
      }
      const problem = metaStringProblem(body);
      if (problem !== undefined) throw new TransportError(method, apiPath, problem, { code: "MalformedResponse" });
      return body as T;
    } catch (e) {
      if (signal?.aborted) throw abortReason(signal);
      throw ex.idle.fired ?? toTransportError(method, apiPath, e);
    } finally {
      ex.dispose();
    }
  }

  /**
   * Streams a WATCH: one event per newline-delimited JSON line. A non-2xx answer throws ApiError;
   * a clean server close or an abort ends the iteration; a broken or idle connection throws TransportError.
   * ERROR events (e.g. 410 Expired) are yielded as they come; the server closes the stream after them.
   * An event that is not JSON, or longer than maxWatchEventBytes, ends the watch with TransportError
   * (MalformedResponse, ResponseTooLarge), as a decode error ends client-go's: the reflector backs off and relists.
   */
  async *watch<T extends KubernetesObject>(opts: WatchOptions): AsyncGenerator<WatchEvent<T>, void, undefined> {
    const { path: apiPath, signal } = opts;
    if (signal?.aborted) return;
    const query: Query = { ...opts.query, watch: opts.query?.["watch"] ?? true };
    const timeoutSeconds = Number(query["timeoutSeconds"] ?? 0) || 0;
    const idleMs = opts.idleTimeoutMs ?? Math.max(300_000, timeoutSeconds * 1000 + 60_000);
    let ex: Exchange;
    try {
      ex = await this.open("GET", apiPath, query, undefined, undefined, signal, idleMs, false);
    } catch (e) {
      if (signal?.aborted) return;
      throw e;
    }
    try {
      const status = ex.res.statusCode ?? 0;
      if (status < 200 || status >= 300)
        throw apiError("GET", apiPath, ex.res, await readText(ex.res, this.bodyReading("GET", apiPath, ex.idle)));
      const lines = new LineSplitter(this.maxWatchEventBytes);
      for await (const chunk of ex.res as AsyncIterable<Buffer>) {
        // The clock stops while the consumer handles events: a slow consumer is not a dead connection.
        ex.idle.stop();
        for (const line of lines.push(chunk)) yield parseEvent<T>(apiPath, line);
        ex.idle.start();
      }
      for (const line of lines.end()) yield parseEvent<T>(apiPath, line);
    } catch (e) {
      if (signal?.aborted) return;
      if (e instanceof LineTooLongError) {
        // client-go's words for the same failure, then the limit that decided it.
        throw new TransportError(
          "GET",
          apiPath,
          "unable to decode an event from the watch stream: object to decode was longer than maximum allowed size " +
            `(${e.maxLineBytes} bytes, maxWatchEventBytes)`,
          { cause: e, code: "ResponseTooLarge" },
        );
      }
      throw ex.idle.fired ?? toTransportError("GET", apiPath, e);
    } finally {
      ex.dispose();
      // Early exit (break, abort, error): drop the connection rather than drain an endless stream.
      if (!ex.res.complete) ex.req.destroy();
    }
  }

  private bodyReading(method: HttpMethod, apiPath: string, idle: IdleTimer): BodyReading {
    return { method, path: apiPath, maxBytes: this.maxResponseBytes, onData: () => idle.start() };
  }

  /** The API server URL's host:port, as client-go's metrics label it; undefined without a usable cluster. */
  private serverHost(): string | undefined {
    const server = this.kubeConfig.getCurrentCluster()?.server;
    return server && URL.canParse(server) ? new URL(server).host : undefined;
  }

  /** Closes pooled connections. In-flight requests are cut. */
  close(): void {
    this.agent?.agent.destroy();
    this.agent = undefined;
    for (const a of this.retiredAgents.splice(0)) a.destroy();
  }

  private async open(
    method: HttpMethod,
    apiPath: string,
    query: Query | undefined,
    body: unknown,
    contentType: string | undefined,
    signal: AbortSignal | undefined,
    idleMs: number,
    /**
     * Ask for a gzip body, as client-go's transport does. The API server compresses answers over 128 kB (never a
     * watch); a 10,000-object list shrinks from 8 MB to 0.45 MB, which is faster even over loopback TLS.
     */
    acceptGzip: boolean,
  ): Promise<Exchange> {
    if (signal?.aborted) throw abortReason(signal);
    const cluster = this.kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error(`kubeconfig: context "${this.kubeConfig.getCurrentContext()}" has no cluster`);
    const base = new URL(cluster.server);
    const isHttps = base.protocol === "https:";

    // Re-applied per request so rotated tokens and exec credentials are picked up.
    const opts: https.RequestOptions = { headers: {} };
    await this.kubeConfig.applyToHTTPSOptions(opts);
    if (signal?.aborted) throw abortReason(signal); // aborted while credentials were being fetched
    // Also here, not only in fromKubeConfig: an authenticator or another current context may add credentials later.
    if (!isHttps && (opts.auth || hasAuthorization(opts.headers)))
      assertCredentialsMayTravel(cluster, this.kubeConfig.getCurrentUser(), this.allowCredentialsOverHttp);
    const agent = this.agentFor(isHttps, cluster.proxyUrl, opts);

    const headers: http.OutgoingHttpHeaders = {
      ...(opts.headers as http.OutgoingHttpHeaders),
      Accept: "application/json",
      "User-Agent": this.userAgent,
      ...impersonationHeaders(this.impersonate),
    };
    if (acceptGzip) headers["Accept-Encoding"] = "gzip";
    let payload: Buffer | undefined;
    if (body !== undefined) {
      payload = Buffer.from(JSON.stringify(body), "utf-8");
      headers["Content-Type"] = contentType ?? "application/json";
      headers["Content-Length"] = payload.length;
    }
    const reqPath = base.pathname.replace(/\/+$/, "") + apiPath + queryString(query);

    const reqOpts: https.RequestOptions = {
      protocol: base.protocol,
      hostname: base.hostname.replace(/^\[(.*)\]$/, "$1"), // IPv6 literals come bracketed from URL
      port: base.port || (isHttps ? 443 : 80),
      path: reqPath,
      method,
      headers,
      agent,
      ...(opts.auth ? { auth: opts.auth } : {}),
    };
    const ex = await sendCounted(base.host, isHttps, reqOpts, payload, method, apiPath, signal, idleMs);
    this.onResponse?.({
      method,
      path: apiPath,
      query,
      contentType: headers["Content-Type"] as string | undefined,
      status: ex.res.statusCode ?? 0,
    });
    return ex;
  }

  private agentFor(isHttps: boolean, proxyUrl: string | undefined, o: https.RequestOptions): http.Agent {
    const fingerprint = tlsFingerprint(isHttps, proxyUrl, o);
    if (this.agent?.fingerprint === fingerprint) return this.agent.agent;
    if (this.agent) this.retiredAgents.push(this.agent.agent); // in-flight watches keep their sockets
    let agent: http.Agent;
    if (proxyUrl && o.agent instanceof http.Agent) {
      agent = o.agent; // client-node built a proxy agent (http/https/socks); reuse it rather than reimplement
    } else if (isHttps) {
      const tls: https.AgentOptions = { keepAlive: true, timeout: FREE_SOCKET_TIMEOUT_MS };
      if (o.ca !== undefined) tls.ca = o.ca;
      if (o.cert !== undefined) tls.cert = o.cert;
      if (o.key !== undefined) tls.key = o.key;
      if (o.pfx !== undefined) tls.pfx = o.pfx;
      if (o.passphrase !== undefined) tls.passphrase = o.passphrase;
      if (o.rejectUnauthorized !== undefined) tls.rejectUnauthorized = o.rejectUnauthorized;
      if (o.servername !== undefined) tls.servername = o.servername;
      agent = new https.Agent(tls);
    } else {
      agent = new http.Agent({ keepAlive: true, timeout: FREE_SOCKET_TIMEOUT_MS });
    }
    this.agent = { fingerprint, agent };
    return agent;
  }
}

/**
 * Loads a kubeconfig (explicit file, else $KUBECONFIG, else ~/.kube/config, else the pod's service account)
 * and returns a client for the chosen context. Unlike KubeConfig.loadFromDefault, never silently falls back
 * to http://localhost:8080. The kubeconfig's crdgen.dev/credentials-over-http cluster extensions are honoured.
 * The files are read by kubeconfig-files.ts, not client-node's KubeConfig (70 MB of RSS to import); client-node is
 * loaded only for what it alone implements: exec plugins, azure/gcp/oidc auth providers, proxy-url.
 */
export function loadKubeClient(opts: LoadKubeClientOptions = {}): KubeClient {
  let allowCredentialsOverHttp: readonly string[] = opts.allowCredentialsOverHttp ?? [];
  const files = opts.kubeconfig ? [opts.kubeconfig] : defaultKubeconfigFiles();
  let kc: LightKubeConfig;
  if (files.length > 0) {
    const { data, documents } = readKubeconfigFiles(files);
    kc = new LightKubeConfig(data);
    allowCredentialsOverHttp = [...allowCredentialsOverHttp, ...documents.flatMap(credentialsOverHttpIn)];
  } else if (process.env["KUBERNETES_SERVICE_HOST"] && fs.existsSync(SERVICE_ACCOUNT_TOKEN)) {
    kc = new LightKubeConfig(inClusterKubeconfig());
  } else {
    throw new KubeconfigError(
      "no kubeconfig: set KUBECONFIG, create ~/.kube/config, or run in a pod with a service account",
    );
  }
  const where = `kubeconfig ${files.join(path.delimiter) || "(in-cluster)"}`;
  if (opts.context !== undefined) {
    if (!kc.getContextObject(opts.context)) throw new KubeconfigError(`kubeconfig: no context named "${opts.context}"`);
    kc.setCurrentContext(opts.context);
  }
  const context = kc.getContextObject(kc.getCurrentContext());
  if (!kc.getCurrentContext())
    throw new KubeconfigError(`${where}: no current-context (set one, or pass the context option)`);
  if (!context)
    throw new KubeconfigError(`${where}: current-context "${kc.getCurrentContext()}" is not among its contexts`);
  if (!kc.getCurrentCluster())
    throw new KubeconfigError(
      `${where}: context "${context.name}" names cluster "${context.cluster}", which is not defined`,
    );
  // client-node's Context types user as always set; a context without a user has none.
  if ((context.user as string | undefined) !== undefined && !kc.getCurrentUser())
    throw new KubeconfigError(`${where}: context "${context.name}" names user "${context.user}", which is not defined`);
  return HttpKubeClient.fromKubeConfig(kc, { ...opts, allowCredentialsOverHttp });
}

function positive(name: string, n: number): number {
  if (!(n > 0)) throw new Error(`KubeClient: ${name} must be a positive number of bytes, got ${n}`);
  return n;
}

function hasAuthorization(headers: https.RequestOptions["headers"]): boolean {
  if (!headers || Array.isArray(headers)) return false;
  return Object.keys(headers).some((h) => h.toLowerCase() === "authorization");
}

function impersonationHeaders(as: Impersonation | undefined): http.OutgoingHttpHeaders {
  if (as === undefined) return {};
  const headers: http.OutgoingHttpHeaders = { "Impersonate-User": as.user };
  // Node sends an array value as one header line per element, which is how the API server reads several groups.
  if (as.groups && as.groups.length > 0) headers["Impersonate-Group"] = [...as.groups];
  if (as.uid) headers["Impersonate-Uid"] = as.uid;
  return headers;
}

// Errors from a reused keep-alive socket that died before any response: safe to retry for GET.
const staleConnectionErrors = new WeakSet<object>();

/** send, retried once as below, with its result reported to the rest client metrics (the status, else "<error>"). */
async function sendCounted(host: string, ...args: Parameters<typeof send>): Promise<Exchange> {
  const [, , , method, , signal] = args;
  let ex: Exchange;
  try {
    try {
      ex = await send(...args);
    } catch (e) {
      // A pooled connection the server closed while idle fails at once; like Go's transport, retry a GET once.
      if (method !== "GET" || !staleConnectionErrors.has(e as object) || signal?.aborted) throw e;
      ex = await send(...args);
    }
  } catch (e) {
    requestMetrics().requestResult("<error>", method, host);
    throw e;
  }
  requestMetrics().requestResult(String(ex.res.statusCode ?? 0), method, host);
  return ex;
}

function send(
  isHttps: boolean,
  reqOpts: https.RequestOptions,
  payload: Buffer | undefined,
  method: HttpMethod,
  apiPath: string,
  signal: AbortSignal | undefined,
  idleMs: number,
): Promise<Exchange> {
  return new Promise<Exchange>((resolve, reject) => {
    const req = (isHttps ? https : http).request(reqOpts);
    const idle = new IdleTimer(idleMs, () => {
      // Kept on the timer: once the response has started, node reports the destroy as a generic "aborted".
      idle.fired = new TransportError(method, apiPath, `no data from the server for ${idleMs} ms`, {
        code: "IdleTimeout",
      });
      req.destroy(idle.fired);
    });
    const onAbort = (): void => {
      const reason = abortReason(signal!);
      req.destroy(reason instanceof Error ? reason : new DOMException("This operation was aborted", "AbortError"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    const dispose = (): void => {
      idle.stop();
      signal?.removeEventListener("abort", onAbort);
    };
    req.on("response", (res) => {
      idle.start();
      resolve({ req, res, idle, dispose });
    });
    req.on("error", (err: NodeJS.ErrnoException) => {
      dispose();
      if (signal?.aborted) {
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- an aborted request rejects with the signal's reason, whatever it is, as fetch does
        reject(abortReason(signal));
        return;
      }
      const e = idle.fired ?? toTransportError(method, apiPath, err);
      if (req.reusedSocket && (err.code === "ECONNRESET" || err.code === "EPIPE")) staleConnectionErrors.add(e);
      reject(e);
    });
    idle.start();
    req.end(payload);
  });
}

interface Exchange {
  req: http.ClientRequest;
  res: http.IncomingMessage;
  idle: IdleTimer;
  dispose(): void;
}

/** A restartable inactivity timer. */
class IdleTimer {
  private timer: NodeJS.Timeout | undefined;
  /** Set when the timer went off. */
  fired: TransportError | undefined;
  constructor(
    private readonly ms: number,
    private readonly onIdle: () => void,
  ) {}
  start(): void {
    this.stop();
    if (this.ms > 0 && Number.isFinite(this.ms)) this.timer = setTimeout(this.onIdle, this.ms);
  }
  stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

export function queryString(query: Query | undefined): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    const values = Array.isArray(value) ? value : [value];
    for (const v of values as Array<string | number | boolean>) params.append(key, String(v));
  }
  const s = params.toString();
  return s ? `?${s}` : "";
}

function apiError(method: string, apiPath: string, res: http.IncomingMessage, text: string): ApiError {
  let body: Status | string = text;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) body = parsed;
  } catch {
    // Not JSON (a proxy's HTML page, plain text): keep the raw text as the body.
  }
  const retryAfter = res.headers["retry-after"];
  return new ApiError({ status: res.statusCode ?? 0, method, path: apiPath, body, retryAfterHeader: retryAfter });
}

function parseEvent<T extends KubernetesObject>(apiPath: string, line: string): WatchEvent<T> {
  let ev: unknown;
  try {
    ev = parseJson(line);
  } catch (cause) {
    // Unlike client-node, a corrupt line is an error, not silently skipped: the consumer must relist or rewatch.
    throw new TransportError("GET", apiPath, `watch event is not JSON: ${line.slice(0, 200)}`, {
      cause,
      code: "MalformedResponse",
    });
  }
  const e = ev as { type?: unknown; object?: unknown } | null;
  if (!e || typeof e.type !== "string" || !e.object || typeof e.object !== "object") {
    throw new TransportError("GET", apiPath, `watch event lacks type or object: ${line.slice(0, 200)}`, {
      code: "MalformedResponse",
    });
  }
  const problem = metaStringProblem(e.object, "object.");
  if (problem !== undefined)
    throw new TransportError("GET", apiPath, `watch event: ${problem}`, { code: "MalformedResponse" });
  return ev as WatchEvent<T>;
}

function toTransportError(method: string, apiPath: string, e: unknown): Error {
  if (e instanceof ApiError || e instanceof TransportError) return e;
  const msg = e instanceof Error ? e.message : String(e);
  return new TransportError(method, apiPath, msg, { cause: e });
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

function tlsFingerprint(isHttps: boolean, proxyUrl: string | undefined, o: https.RequestOptions): string {
  const h = createHash("sha256");
  h.update(`${isHttps}|${proxyUrl ?? ""}|${o.rejectUnauthorized}|${o.servername ?? ""}|${o.passphrase ?? ""}`);
  for (const v of [o.ca, o.cert, o.key, o.pfx]) {
    h.update("|");
    for (const part of Array.isArray(v) ? v : [v]) {
      if (typeof part === "string" || Buffer.isBuffer(part)) h.update(part);
      else if (part !== undefined) h.update(JSON.stringify(part));
    }
  }
  return h.digest("hex");
}
