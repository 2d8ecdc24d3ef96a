// Go's own type checker as explore's Go front end for what names cannot tell: the small Go program in go-typed/ loads
// the module around each explored folder with golang.org/x/tools/go/packages and prints which types are workqueues or
// wrap one, which calls make a queue, which methods an interface call can run, and which functions only report or
// split keys. It is built on first use into a cache outside the project (like the control plane) and reused.
// Without Go, or when the module cannot be loaded, explore reads Go by syntax alone and says why.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { pkgKeyOf } from "./modules.js";

const run = promisify(execFile);

/** What the linker takes from types, with places relative to the explored root (ids as the syntax reader makes them). */
export interface GoTypeFacts {
  /** Type keys (`go:<dir>.<Name>`) of the module's types that implement client-go's workqueue interface. */
  queueTypes: Set<string>;
  /** Type key → the field holding the workqueue and the field holding the handler its workers call. */
  wrappers: Map<string, { queueField: string; handlerField: string }>;
  /** Call ids of calls that make a queue. */
  queueCalls: Set<string>;
  /** Function ids of the module's queue constructors (what they call is the queue's own making). */
  constructors: Set<string>;
  /** Interface call id → function ids of the module's methods implementing it. */
  dispatch: Map<string, string[]>;
  /** Function ids of logging, tracing, metrics and key helpers. */
  helpers: Set<string>;
  /** Call id → kind: calls making an informer (or a type holding some) from a GroupVersionResource of a constant. */
  informerKinds: Map<string, string>;
  /** Call ids of AddEventHandler calls forwarding a wrapper's own handler parameter (registered where it is called). */
  forwarded: Set<string>;
  /** Call id → the kinds of object it runs for, or never runs for: a type switch on a parameter decides it. */
  narrowed: Map<string, Narrowing>;
  /** Informer constructor calls in a helper given the object: each call of the helper is an informer of its own. */
  perCallInformers: Set<string>;
  /** controller-runtime's source.Channel call id → the kinds of the objects that come out of its channel. */
  channelKinds: Map<string, string[]>;
}

/** A call behind a type test of the object (`case *appsv1.StatefulSet:`): the kinds it runs only for, or never for. */
export interface Narrowing {
  only?: string[];
  except?: string[];
}

/** Whether a call runs for objects of `kind` (a kind explore could not name runs everything). */
export function runsFor(goTypes: GoTypeFacts | undefined, callId: string, kind: string): boolean {
  const n = goTypes?.narrowed.get(callId);
  if (!n || kind === "?") return true;
  return (!n.only || n.only.includes(kind)) && !n.except?.includes(kind);
}

/** The typed facts, or why Go was read by syntax only. */
export type GoTypesOutcome =
  { ok: true; facts: GoTypeFacts; packages: number; errors: string[] } | { ok: false; reason: string };

interface RawFacts {
  packages: number;
  errors: string[];
  queueTypes: { dir: string; name: string }[] | null;
  wrappers: { dir: string; name: string; queueField: string; handlerField: string }[] | null;
  queueCalls: string[] | null;
  constructors: string[] | null;
  dispatch: Record<string, string[] | null>;
  helpers: Record<string, string>;
  informerKinds?: Record<string, string>;
  forwarded?: string[] | null;
  narrowed?: Record<string, Narrowing>;
  perCallInformers?: string[] | null;
  channelKinds?: Record<string, string[] | null>;
}

const sourceDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "go-typed");
/** The program's sources (every .go file of go-typed/, and its module files): a change to any rebuilds it. */
const sources = () => [
  ...readdirSync(sourceDir)
    .filter((f) => f.endsWith(".go"))
    .sort(),
  "go.mod",
  "go.sum",
];

/** The cache folder: CRDGEN_CACHE_DIR, else $XDG_CACHE_HOME/crdgen, else ~/.cache/crdgen (as controlplane/build.sh). */
function cacheRoot(): string {
  const env = process.env;
  return env["CRDGEN_CACHE_DIR"] || path.join(env["XDG_CACHE_HOME"] || path.join(os.homedir(), ".cache"), "crdgen");
}

/** Builds the program once per source and Go version; later runs find it in the cache. */
export async function goTypesProgram(): Promise<string> {
  const { stdout: version } = await run("go", ["env", "GOVERSION"]);
  const hash = createHash("sha256").update(version.trim());
  for (const f of sources()) hash.update(readFileSync(path.join(sourceDir, f)));
  const dir = path.join(cacheRoot(), "explore-go-types", hash.digest("hex").slice(0, 16));
  const binary = path.join(dir, "explore-go-types");
  if (existsSync(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  const partial = `${binary}.${process.pid}`;
  await run("go", ["build", "-o", partial, "."], { cwd: sourceDir, maxBuffer: 16 << 20 });
  renameSync(partial, binary);
  return binary;
}

/** Loads each explored folder with the type checker; the first failure makes explore read Go by syntax only. */
export async function readGoTypes(dirs: string[], root: string): Promise<GoTypesOutcome> {
  let program: string;
  try {
    program = await goTypesProgram();
  } catch (error) {
    return { ok: false, reason: `the Go type checker could not be built (${firstLine(error)})` };
  }
  const facts: GoTypeFacts = {
    queueTypes: new Set(),
    wrappers: new Map(),
    queueCalls: new Set(),
    constructors: new Set(),
    dispatch: new Map(),
    helpers: new Set(),
    informerKinds: new Map(),
    forwarded: new Set(),
    narrowed: new Map(),
    perCallInformers: new Set(),
    channelKinds: new Map(),
  };
  let packages = 0;
  const errors: string[] = [];
  for (const dir of dirs) {
    let raw: RawFacts;
    try {
      const { stdout } = await run(program, [dir], { maxBuffer: 1 << 30 });
      raw = JSON.parse(stdout) as RawFacts;
    } catch (error) {
      return {
        ok: false,
        reason: `the module at ${path.relative(root, dir) || "."} could not be loaded (${firstLine(error)})`,
      };
    }
    packages += raw.packages;
    errors.push(...raw.errors);
    addFacts(facts, raw, root);
  }
  return { ok: true, facts, packages, errors };
}

function addFacts(facts: GoTypeFacts, raw: RawFacts, root: string): void {
  const rel = (abs: string) => path.relative(root, abs).split(path.sep).join("/");
  const typeKey = (t: { dir: string; name: string }) => `${pkgKeyOf(rel(t.dir) === "" ? "" : rel(t.dir))}.${t.name}`;
  // `/abs/file.go:12:3` or `/abs/file.go:12:3-14:5`: the file part made relative to the explored root.
  const id = (place: string) => {
    const m = /^(.*?):(\d+:\d+(?:-\d+:\d+)?)$/.exec(place);
    return m ? `${rel(m[1]!)}:${m[2]!}` : place;
  };
  for (const t of raw.queueTypes ?? []) facts.queueTypes.add(typeKey(t));
  for (const w of raw.wrappers ?? [])
    facts.wrappers.set(typeKey(w), { queueField: w.queueField, handlerField: w.handlerField });
  for (const c of raw.queueCalls ?? []) facts.queueCalls.add(id(c));
  for (const c of raw.constructors ?? []) facts.constructors.add(id(c));
  for (const [call, targets] of Object.entries(raw.dispatch)) facts.dispatch.set(id(call), (targets ?? []).map(id));
  for (const fn of Object.keys(raw.helpers)) facts.helpers.add(id(fn));
  addRegistrationFacts(facts, raw, id);
}

function addRegistrationFacts(facts: GoTypeFacts, raw: RawFacts, id: (place: string) => string): void {
  for (const [call, kind] of Object.entries(raw.informerKinds ?? {})) facts.informerKinds.set(id(call), kind);
  for (const call of raw.forwarded ?? []) facts.forwarded.add(id(call));
  for (const [call, n] of Object.entries(raw.narrowed ?? {})) facts.narrowed.set(id(call), n);
  for (const call of raw.perCallInformers ?? []) facts.perCallInformers.add(id(call));
  for (const [call, kinds] of Object.entries(raw.channelKinds ?? {})) facts.channelKinds.set(id(call), kinds ?? []);
}

function firstLine(error: unknown): string {
  const e = error as { code?: string; stderr?: string; message?: string };
  if (e.code === "ENOENT") return "go not found on PATH";
  const text = (e.stderr || e.message || String(error)).trim();
  return text.split("\n")[0]!.slice(0, 200);
}
