// Big inputs are parsed and modelled on worker threads, one contiguous share of the files each, so the result (and
// the first error) is the same as one thread would give; small ones stay on the main thread (a worker costs ~100 ms).
// The workers also declare the types of the group/versions their share holds whole (emit/declare-types.ts).
import os from "node:os";
import { Worker } from "node:worker_threads";
import { mergeDeclared, type DeclaredGroupVersions } from "../emit/declare-types.js";
import { buildModels, type CrdModel, type ModelOptions } from "../model/resource-model.js";
import type { SchemaWarning } from "../model/normalize-schema.js";
import { InputError } from "./input-error.js";
import { parseCrds, type SkippedDocument } from "./parse-crds.js";
import type { InputText } from "./read-inputs.js";

/** Inputs smaller than this (in characters) are not worth a worker. */
export const parallelThreshold = 4 * 1024 * 1024;

export interface Models {
  crds: CrdModel[];
  skipped: SkippedDocument[];
  warnings: SchemaWarning[];
  /** With worker threads: the type declarations they made. */
  declared?: DeclaredGroupVersions;
}

/**
 * How many workers: CRDGEN_WORKERS if set (0 = none); else, for big inputs, one per idle CPU (available parallelism less
 * the 1-minute load average), never more than the files, and none unless two CPUs are idle. Workers cost CPU time
 * of their own (starting, copying models back): on busy CPUs the corpus took 16 s with two workers and 10-12 s on
 * the main thread alone (bench/results/generate-2026-12-04.md).
 */
function workerCount(texts: InputText[]): number {
  const size = texts.reduce((n, t) => n + t.text.length, 0);
  const configured = process.env["CRDGEN_WORKERS"];
  if (configured !== undefined && configured !== "") return Math.min(Number(configured) || 0, texts.length);
  if (size < parallelThreshold || texts.length < 4) return 0;
  const cpus = os.availableParallelism();
  const idle = Math.floor(cpus - os.loadavg()[0]!);
  return idle < 2 ? 0 : Math.min(idle, cpus, texts.length);
}

export async function loadModels(texts: InputText[], options: ModelOptions): Promise<Models> {
  const workers = workerCount(texts);
  if (workers < 2) {
    const { crds: loaded, skipped } = parseCrds(texts);
    return { ...buildModels(loaded, options), skipped };
  }
  const shares = split(texts, workers);
  const results = await Promise.all(shares.map((share) => runWorker(share, options)));
  for (const r of results) {
    if ("inputError" in r) throw new InputError(r.inputError.location, r.inputError.problem);
    if ("fatal" in r) throw new Error(r.fatal);
  }
  const models = results as Models[];
  const crds = models.flatMap((m) => m.crds);
  // Each worker checked its own share for two CRDs of one name; here across shares, as buildModels words it.
  const seen = new Map<string, CrdModel>();
  for (const crd of crds) {
    const first = seen.get(crd.name);
    if (first) {
      throw new InputError(
        { file: crd.source.file, documentIndex: crd.source.documentIndex, schemaPath: "/metadata/name" },
        `a second CustomResourceDefinition named ${crd.name} (the first is in ${first.source.file}, document ${first.source.documentIndex})`,
      );
    }
    seen.set(crd.name, crd);
  }
  return {
    crds,
    skipped: models.flatMap((m) => m.skipped),
    warnings: models.flatMap((m) => m.warnings),
    declared: mergeDeclared(models.flatMap((m) => (m.declared ? [m.declared] : []))),
  };
}

/** Contiguous shares of about equal size, in input order. */
function split(texts: InputText[], parts: number): InputText[][] {
  const total = texts.reduce((n, t) => n + t.text.length, 0);
  const shares: InputText[][] = [[]];
  let size = 0;
  for (const text of texts) {
    if (size >= (total / parts) * shares.length && shares.length < parts) shares.push([]);
    shares.at(-1)!.push(text);
    size += text.text.length;
  }
  return shares.filter((s) => s.length > 0);
}

type WorkerResult = Models | { inputError: { location: InputError["location"]; problem: string } } | { fatal: string };

function runWorker(texts: InputText[], options: ModelOptions): Promise<WorkerResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./model-worker.js", import.meta.url), { workerData: { texts, options } });
    worker.once("message", (message: WorkerResult) => {
      resolve(message);
      void worker.terminate();
    });
    worker.once("error", reject);
    worker.once("exit", (code) => {
      if (code !== 0) reject(new Error(`crdgen: a model worker exited with code ${code}`));
    });
  });
}
