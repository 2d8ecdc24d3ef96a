// Reads Go sources with tree-sitter's Go grammar into the neutral facts, on worker threads when there are many.
// Packages are folders; import paths map to folders through the go.mod files found under the explored root.
// The file reader is one class in layers, a file each: reader-base → informers → controller-runtime → calls →
// expressions → statements → declarations (GoFileReader); a layer calls later ones through the base's abstract
// expr/visit.
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { type Facts, type TypeFact, emptyFacts, mergeFacts } from "../facts.js";
import { kindOfInformerType } from "./informers.js";
import type { GoModule, GoSource } from "./modules.js";
import { type GoFileResult, goParser, readGoFile } from "./read-file.js";

/**
 * Below this many files per thread a thread's start (the grammar and the reader loaded again, about 0.5 s of CPU) and
 * handing its facts back cost more than they save: measured on 2 shared CPUs, a 600-file tree took 0.3-0.45 s longer
 * with a second thread. Only a large tree (2,000 Go files and more) is shared among the CPUs.
 */
const FILES_PER_THREAD = 1000;

export interface ReadGoOptions {
  /**
   * Worker threads reading beside this one (0: none). By default one per CPU but this one's (at most 3) once there are
   * enough files.
   */
  workers?: number;
  /** Characters this thread reads meanwhile (TypeScript): it takes that many fewer of the Go files. */
  busyHere?: number;
}

/** Parses every Go file and returns their facts; types are completed with methods from every file of their package. */
export async function readGo(sources: GoSource[], modules: GoModule[], options: ReadGoOptions = {}): Promise<Facts> {
  const threads = Math.min(availableParallelism(), 4, Math.floor(sources.length / FILES_PER_THREAD));
  const workers = options.workers ?? Math.max(0, threads - 1);
  if (workers === 0) return joinFiles(await readHere(sources, modules));
  const [own = [], ...theirs] = runs(sources, workers, options.busyHere ?? 0);
  // The workers start first; this thread reads its run once the caller's own reading is done.
  const reading = Promise.all(theirs.filter((run) => run.length).map((files) => readInWorker(files, modules)));
  reading.catch(() => undefined);
  const mine = own.length ? await readHere(own, modules) : [];
  return joinFiles([...mine, ...(await reading).flat()]);
}

async function readHere(sources: GoSource[], modules: GoModule[]): Promise<GoFileResult[]> {
  const parser = await goParser();
  return sources.map((source) => readGoFile(parser, source, modules));
}

/**
 * Consecutive runs of files, one for this thread then one per worker, of about the same size each once this thread's
 * other work (`busyHere` characters) is counted in its own. Handing facts back costs too, so this thread reads first.
 */
function runs(sources: GoSource[], workers: number, busyHere: number): GoSource[][] {
  const total = sources.reduce((sum, s) => sum + s.text.length, 0);
  const share = (total + busyHere) / (workers + 1);
  const bounds = [Math.max(0, share - busyHere)];
  for (let i = 1; i <= workers; i++) bounds.push(bounds[0]! + ((total - bounds[0]!) * i) / workers);
  const out: GoSource[][] = [[]];
  let size = 0;
  for (const source of sources) {
    if (size >= bounds[out.length - 1]! && out.length <= workers) out.push([]);
    out.at(-1)!.push(source);
    size += source.text.length;
  }
  while (out.length <= workers) out.push([]);
  return out;
}

function readInWorker(sources: GoSource[], modules: GoModule[]): Promise<GoFileResult[]> {
  const execArgv = workerExecArgv();
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./read-worker.js", import.meta.url), {
      workerData: { sources, modules },
      ...(execArgv ? { execArgv } : {}),
    });
    worker.once("message", (message: { results: GoFileResult[] } | { error: string }) => {
      if ("error" in message) reject(new Error(message.error));
      else resolve(message.results);
    });
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`the Go reader's worker thread stopped (exit code ${code})`)));
  });
}

/**
 * A worker takes this process's node flags over, unless the process runs a script given inline (`-e`, `-p`,
 * `--input-type`): a worker started from a file fails with those (the explore bench runs explore that way). Then it
 * starts with none: an explicit list is re-checked, and flags of the whole process (Node 24's test runner passes some)
 * are refused there.
 */
function workerExecArgv(): string[] | undefined {
  return process.execArgv.some((flag) => /^(-e|-p|--eval|--print|--input-type)(=|$)/.test(flag)) ? [] : undefined;
}

/** The files' facts in file order, as if read one after the other. */
function joinFiles(results: GoFileResult[]): Facts {
  const facts = emptyFacts();
  const types = new Map<string, TypeFact>();
  const methods = new Map<string, string[]>();
  for (const result of results) {
    if ("skipped" in result) {
      facts.warnings.push(result.skipped);
      continue;
    }
    mergeFacts(facts, result.facts);
    for (const [key, type] of result.types) types.set(key, type);
    for (const [key, names] of result.methods) methods.set(key, [...(methods.get(key) ?? []), ...names]);
  }
  for (const [key, type] of types) {
    type.methods = methods.get(key) ?? [];
    facts.types.push(type);
  }
  kindsFromFieldTypes(facts, types);
  return facts;
}

/**
 * `c.pInformer.Informer()`: the kind is the one the field's declared type names (PodInformer), from whichever file
 * declares the struct; when the struct is not known, every struct with that field must agree. A field's name is never
 * trusted over its type (pInformer, dsInformer).
 */
function kindsFromFieldTypes(facts: Facts, types: Map<string, TypeFact>): void {
  for (const call of facts.calls) {
    const field = call.informer?.field;
    if (!field) continue;
    const holders = field.type ? [types.get(field.type)] : [...types.values()];
    const declared = new Set(
      holders.map((t) => t?.fieldTypes?.[field.name]).filter((name): name is string => name !== undefined),
    );
    const kinds = new Set([...declared].map(kindOfInformerType));
    const [kind] = kinds;
    if (kinds.size === 1 && kind) call.informer!.kind = kind;
  }
}
