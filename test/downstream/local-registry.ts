// A throwaway npm registry for tests: verdaccio on 127.0.0.1, its config and storage in a given folder. crdgen's
// packages can only come from what a test publishes into it; every other package is proxied to `uplink`.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { stringify } from "yaml";

export interface LocalRegistry {
  /** The registry's URL, ending in a slash. */
  url: string;
  /** A token of a user that may publish crdgen's packages, for `//host:port/:_authToken`. */
  token: string;
  /** What verdaccio printed so far: for failure messages. */
  log(): string;
  stop(): Promise<void>;
}

/** The packages a test publishes: never proxied, so the registry has them only once they are published. */
const ownPackages = ["crdgen", "@crdgen/*"];

/** A port that was free a moment ago (verdaccio takes a port number, not a listening socket). */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, "close");
  return port;
}

/** Starts verdaccio with its config, storage and users in `dir`; `uplink` serves every package but crdgen's. */
export async function startLocalRegistry(dir: string, uplink: string): Promise<LocalRegistry> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const own = Object.fromEntries(ownPackages.map((name) => [name, { access: "$all", publish: "$authenticated" }]));
  const config = {
    storage: path.join(dir, "storage"),
    auth: { htpasswd: { file: path.join(dir, "htpasswd") } },
    // maxage: a package's metadata, once fetched, serves the whole run (every case installs the same packages).
    uplinks: { upstream: { url: uplink, timeout: "60s", max_fails: 5, maxage: "30m" } },
    packages: { ...own, "**": { access: "$all", proxy: "upstream" } },
    log: { type: "stdout", format: "pretty", level: "warn" },
    middlewares: { audit: { enabled: false } },
    web: { enable: false },
  };
  const configFile = path.join(dir, "config.yaml");
  writeFileSync(configFile, stringify(config));
  const bin = createRequire(import.meta.url).resolve("verdaccio/bin/verdaccio");
  const child = spawn(process.execPath, [bin, "--config", configFile, "--listen", `127.0.0.1:${port}`], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const stop = () => stopChild(child);
  try {
    await waitUntilUp(url, child, () => output);
    return { url, token: await addUser(url), log: () => output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  const killed = await Promise.race([exited.then(() => true), sleep(5_000).then(() => false)]);
  if (!killed) child.kill("SIGKILL");
}

/** Waits for verdaccio's ping to answer, for at most 60 s; fails at once when verdaccio exits. */
async function waitUntilUp(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited with ${child.exitCode}:\n${log()}`);
    const ok = await fetch(new URL("-/ping", url)).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    await sleep(200);
  }
  throw new Error(`verdaccio did not answer on ${url} within 60 s:\n${log()}`);
}

/** Registers a throwaway user the way `npm adduser` does, and returns its token. */
async function addUser(url: string): Promise<string> {
  const name = "crdgen-test";
  const response = await fetch(new URL(`-/user/org.couchdb.user:${name}`, url), {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, password: "throwaway-password", type: "user", roles: [] }),
  });
  const body = (await response.json()) as { token?: string };
  if (!response.ok || !body.token)
    throw new Error(`verdaccio refused the test user (${response.status}): ${JSON.stringify(body)}`);
  return body.token;
}
