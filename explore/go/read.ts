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
 * Below this many files a thread's start (loading the grammar and the reader again) costs more than it saves. Above
 * it, parsing and walking the trees (most of explore's time on a large operator) is shared among the CPUs.
 */
const FILES_PER_WORKER = 150;

export interface ReadGoOptions {
  /** Worker threads to read in; by default one per CPU (at most 4) once there are enough files, else none. */
  workers?: number;
}

/** Parses every Go file and returns their facts; types are completed with methods from every file of their package. */
export async function readGo(sources: GoSource[], modules: GoModule[], options: ReadGoOptions = {}): Promise<Facts> {
  const workers = options.workers ?? Math.min(availableParallelism(), 4, Math.floor(sources.length / FILES_PER_WORKER));
  const results = workers > 1 ? await readInWorkers(sources, modules, workers) : await readHere(sources, modules);
  return joinFiles(results);
}

async function readHere(sources: GoSource[], modules: GoModule[]): Promise<GoFileResult[]> {
  const parser = await goParser();
  return sources.map((source) => readGoFile(parser, source, modules));
}

/** Each worker reads a run of consecutive files of about the same size in all; the results keep the files' order. */
async function readInWorkers(sources: GoSource[], modules: GoModule[], workers: number): Promise<GoFileResult[]> {
  const total = sources.reduce((sum, s) => sum + s.text.length, 0);
  const runs: GoSource[][] = [];
  let run: GoSource[] = [];
  let size = 0;
  for (const source of sources) {
    run.push(source);
    size += source.text.length;
    if (size >= (total * (runs.length + 1)) / workers && runs.length < workers - 1) {
      runs.push(run);
      run = [];
    }
  }
  runs.push(run);
  const done = await Promise.all(runs.map((files) => readInWorker(files, modules)));
  return done.flat();
}

function readInWorker(sources: GoSource[], modules: GoModule[]): Promise<GoFileResult[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./read-worker.js", import.meta.url), { workerData: { sources, modules } });
    worker.once("message", (message: { results: GoFileResult[] } | { error: string }) => {
      if ("error" in message) reject(new Error(message.error));
      else resolve(message.results);
    });
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`the Go reader's worker thread stopped (exit code ${code})`)));
  });
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
