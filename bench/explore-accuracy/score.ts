// Scores one `crdgen explore --format json` result against a hand-written answer key (bench/explore-accuracy/*.json):
// which key controllers were found, whether the processing function is the one the key names, which watched kinds
// were attached that the key does not list and which were missed.
import type { Controller, ExploreResult, Place } from "@crdgen/explore";

/** The function the worker hands the item to, as the key names it: `Type.Method` and where it is defined. */
export interface KeyProcess {
  fn: string;
  file: string;
  line: number;
}

export interface KeyController {
  id: string;
  /** Names explore may give the controller (`package.Type`). */
  names: string[];
  /** `file:line` where the controller is built (the builder, the Register, the queue's constructor call). */
  setup: string;
  process: KeyProcess;
  /** Kinds whose events reach this controller's queue. */
  kinds: string[];
  /** Kinds that may be reported without being wrong (`?` for a kind set at run time). */
  optionalKinds?: string[];
  evidence: Record<string, string>;
  note?: string;
}

export interface AnswerKey {
  repo: string;
  url: string;
  commit: string;
  /** The folder explore runs on, relative to the checkout. */
  root: string;
  rules?: string;
  controllers: KeyController[];
}

export interface ControllerScore {
  id: string;
  found?: string;
  /** The block found has watches and a worker that processes keys (not a queue and a worker reported apart). */
  complete: boolean;
  processExpected: string;
  processGot: string[];
  /**
   * Every process named (each worker's, and their alternatives) is the key's: one worker naming another controller's
   * function (workers of a shared type linked to every queue) is not right.
   */
  processRight: boolean;
  /** The key's function is among the process and its alternatives. */
  processAmong: boolean;
  wrongKinds: string[];
  missedKinds: string[];
  unresolvedKinds: string[];
  /**
   * Watches registered in the package of another key controller and not in this one's (setup or process folder):
   * cross-talk that kinds alone do not show when both controllers watch the same kind.
   */
  foreignSources: string[];
}

export interface RepoScore {
  controllers: ControllerScore[];
  /** Found controllers no key controller matched. */
  extra: string[];
}

/** Kinds explore prints when it cannot name one. */
const UNRESOLVED = /^\?|\(kind set at run time\)|^\(callback\)|^unknown$/i;

const norm = (s: string): string => s.replace(/^.*\./, "").toLowerCase();

/** A kind as the key names it matches a kind found, a resource name (`prometheuses`) or a qualified type. */
export function sameKind(expected: string, found: string): boolean {
  const e = norm(expected);
  const f = norm(found.replace(/\[.*$/, ""));
  if (e === f) return true;
  const plurals = [`${e}s`, `${e}es`, e.endsWith("y") ? `${e.slice(0, -1)}ies` : ""];
  return plurals.includes(f);
}

/** `a/b/c.go` and `c.go` or `b/c.go` name the same file: reports give paths relative to the folder explored. */
export function sameFile(a: string, b: string): boolean {
  const x = a.split("/");
  const y = b.split("/");
  const n = Math.min(x.length, y.length);
  return x.slice(-n).join("/") === y.slice(-n).join("/");
}

const parseAt = (at: string): { file: string; line: number } => {
  const m = /^(.*):(\d+)/.exec(at);
  return m ? { file: m[1]!, line: Number(m[2]) } : { file: at, line: 0 };
};

/** `(*controller).ProcessItem`, `controller.ProcessItem`, `pkg.(*T).M` → `controller.ProcessItem`. */
export function typeMethod(name: string): string {
  const clean = name.replace(/[()*]/g, "").replace(/ .*$/, "");
  return clean.split(".").slice(-2).join(".");
}

export function processMatches(p: Place, key: KeyProcess): boolean {
  if (typeMethod(p.name) !== key.fn && !p.name.endsWith(key.fn.split(".").pop()!)) return false;
  if (!p.loc) return typeMethod(p.name) === key.fn;
  return sameFile(p.loc.file, key.file) && Math.abs(p.loc.line - key.line) <= 3;
}

function locsOf(c: Controller): { file: string; line: number }[] {
  const locs = [c.loc, c.queue.loc];
  for (const s of c.sources) locs.push(s.loc, s.registeredAt);
  return locs.filter((l): l is { file: string; line: number } => l !== undefined);
}

function processesOf(c: Controller): Place[] {
  return c.workers.flatMap((w) => [...(w.process ? [w.process] : []), ...(w.processAlso ?? [])]);
}

const dirOf = (file: string): string => file.split("/").slice(0, -1).join("/");

/**
 * How well a controller found fits a key controller: its name, a place in the file (and folder) the key builds it in,
 * the kinds it watches, its processing function. Kinds weigh most: when explore splits one controller in two (a
 * queue with its sources and, apart, a worker), the block with the sources is the controller.
 */
function matchScore(c: Controller, k: KeyController): number {
  const setup = parseAt(k.setup);
  const locs = locsOf(c);
  let score = (k.names.includes(c.name) ? 2 : 0) - (c.sources.length ? 0 : 2);
  if (locs.some((l) => sameFile(l.file, setup.file))) score += 2;
  if (locs.some((l) => sameFile(l.file, setup.file) && Math.abs(l.line - setup.line) <= 3)) score += 1;
  if (locs.some((l) => sameFile(dirOf(l.file), dirOf(setup.file)))) score += 1;
  const first = c.workers.find((w) => w.process)?.process;
  if (first && processMatches(first, k.process)) score += 3;
  else if (processesOf(c).some((p) => processMatches(p, k.process))) score += 1;
  const kinds = c.sources.map((s) => s.kind);
  const shared = k.kinds.filter((e) => kinds.some((f) => sameKind(e, f))).length;
  score += (4 * shared) / Math.max(1, new Set([...k.kinds, ...kinds.map(norm)]).size);
  return score;
}

/** A block is this controller's only if it carries its name or is made (block or queue) in its package. */
function placed(c: Controller, k: KeyController): boolean {
  const dirs = [dirOf(parseAt(k.setup).file), dirOf(k.process.file)];
  const own = [c.loc, c.queue.loc].filter((l) => l !== undefined);
  return k.names.includes(c.name) || own.some((l) => dirs.some((d) => sameFile(dirOf(l.file), d)));
}

/** One-to-one, best pairs first; a pair needs more than a shared name or shared kinds to count. */
function pair(found: Controller[], key: KeyController[]): Map<KeyController, Controller> {
  const candidates: { c: Controller; k: KeyController; s: number }[] = [];
  for (const c of found) for (const k of key) candidates.push({ c, k, s: matchScore(c, k) });
  candidates.sort((a, b) => b.s - a.s);
  const paired = new Map<KeyController, Controller>();
  const used = new Set<Controller>();
  for (const { c, k, s } of candidates) {
    if (s < 3 || !placed(c, k) || paired.has(k) || used.has(c)) continue;
    paired.set(k, c);
    used.add(c);
  }
  return paired;
}

const ownDirs = (k: KeyController): string[] => [dirOf(parseAt(k.setup).file), dirOf(k.process.file)];

/** A source is foreign when it is registered (or, without that, made) in another key controller's folder only. */
function foreignSources(c: Controller, k: KeyController, all: KeyController[]): string[] {
  const own = ownDirs(k);
  const others = all.filter((o) => o !== k).map((o) => dirOf(parseAt(o.setup).file));
  const foreign: string[] = [];
  for (const s of c.sources) {
    const at = s.registeredAt ?? s.loc;
    if (!at) continue;
    const dir = dirOf(at.file);
    if (own.some((d) => sameFile(dir, d)) || !others.some((d) => sameFile(dir, d))) continue;
    foreign.push(`${s.kind} (${at.file}:${at.line})`);
  }
  return foreign;
}

function scoreController(k: KeyController, c: Controller | undefined, all: KeyController[]): ControllerScore {
  const processExpected = `${k.process.fn} (${k.process.file}:${k.process.line})`;
  const base = { id: k.id, processExpected, wrongKinds: [], unresolvedKinds: [], foreignSources: [] };
  if (!c)
    return { ...base, complete: false, processGot: [], processRight: false, processAmong: false, missedKinds: k.kinds };
  const procs = processesOf(c);
  const first = c.workers.find((w) => w.process)?.process;
  const kinds = [...new Set(c.sources.map((s) => s.kind))];
  const allowed = [...k.kinds, ...(k.optionalKinds ?? [])];
  const unresolved = kinds.filter((f) => UNRESOLVED.test(f));
  return {
    ...base,
    found: c.name,
    complete: c.sources.length > 0 && first !== undefined,
    processGot: procs.map((p) => (p.loc ? `${p.name} (${p.loc.file}:${p.loc.line})` : p.name)),
    processRight: first !== undefined && procs.every((p) => processMatches(p, k.process)),
    processAmong: procs.some((p) => processMatches(p, k.process)),
    wrongKinds: kinds.filter((f) => !UNRESOLVED.test(f) && !allowed.some((e) => sameKind(e, f))),
    missedKinds: k.kinds.filter((e) => !kinds.some((f) => sameKind(e, f))),
    unresolvedKinds: allowed.includes("?") ? [] : unresolved,
    foreignSources: foreignSources(c, k, all),
  };
}

export function scoreRepo(key: AnswerKey, result: Pick<ExploreResult, "controllers">): RepoScore {
  const paired = pair(result.controllers, key.controllers);
  const matched = new Set(paired.values());
  return {
    controllers: key.controllers.map((k) => scoreController(k, paired.get(k), key.controllers)),
    extra: result.controllers
      .filter((c) => !matched.has(c))
      .map((c) => `${c.name}${c.loc ? ` (${c.loc.file}:${c.loc.line})` : ""}`),
  };
}

/**
 * Lines per controller block of the text report: a block starts at a line `controller <name>` and holds the indented
 * lines after it; the next line at the margin (`Not linked:`, `Warnings:`) ends it, so the last block is not charged
 * with the sections that follow.
 */
export function linesPerController(text: string): number[] {
  const sizes: number[] = [];
  let open = false;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    if (line.startsWith("controller ")) {
      sizes.push(1);
      open = true;
    } else if (/^\S/.test(line)) open = false;
    else if (open) sizes[sizes.length - 1]! += 1;
  }
  return sizes;
}
