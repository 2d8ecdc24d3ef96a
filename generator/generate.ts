// The generator as a library: inputs -> CRD models -> planned files -> written (or checked) output.
import path from "node:path";
import { readInputs, type InputText } from "./load/read-inputs.js";
import { loadCrds } from "./load/load-crds.js";
import { SourcePositions } from "./load/source-positions.js";
import { InputError, type InputWarning } from "./input-error.js";
import { UserError } from "./user-error.js";
import type { SkippedDocument } from "./load/parse-crds.js";
import { buildModels, type CrdModel, type VersionSelection } from "./model/resource-model.js";
import type { SchemaWarning } from "./model/normalize-schema.js";
import { planFiles, type PlannedFile } from "./emit/plan-files.js";
import { generatorVersion } from "./version.js";
import { templateRenderer } from "./emit/templates.js";
import { formatGeneratedFiles } from "./emit/format-files.js";
import { inputName } from "./emit/file-header.js";
import { applyPlan, type ApplyReport } from "./write/apply-plan.js";
import { lockFileName, lockPath, newLock, readLock, renderLock, sha256, type LockFile } from "./write/lock-file.js";

export interface GenerateOptions {
  /** Files, folders (every *.yaml / *.yml in them) or "-" for stdin. */
  inputs: string[];
  /** CRD names to read from the cluster of the current kubeconfig context (or `context`), besides the inputs. */
  fromCluster?: { names: string[]; context?: string };
  outDir: string;
  hooksDir?: string;
  /** Where an example test of each kind's hooks is scaffolded once (needs hooksDir). */
  testsDir?: string;
  templatesDir?: string;
  versions?: VersionSelection;
  /** Also emit client-side defaulting and validation (applyDefaults, validate) per version. */
  validation?: boolean;
  /**
   * Also emit admission (and, for several versions, conversion) webhook wiring per kind, and with hooksDir the
   * user-owned <kind>.webhooks.ts / <kind>.conversion.ts and the webhooks.ts registry.
   */
  webhooks?: boolean;
  /** One formatter pass over the generated .ts files (the templates already emit formatted code). */
  format?: boolean;
  /** Called as CRDs are generated: a progress bar's feed. */
  progress?: (done: number, total: number) => void;
  /** Write nothing; report what would change. */
  check?: boolean;
  /** A warning is an error: throw StrictWarningsError before writing anything. */
  strict?: boolean;
  stdin?: () => Promise<string>;
}

export interface GenerateResult {
  crds: CrdModel[];
  skipped: SkippedDocument[];
  warnings: SchemaWarning[];
  report: ApplyReport;
}

/** CRDGEN_TIMING=1 prints how long each phase took (for the benchmark and for finding what is slow). */
function phaseTimer(): (phase: string) => void {
  if (process.env["CRDGEN_TIMING"] !== "1") return () => undefined;
  let last = 0; // performance.now() counts from the process's start
  return (phase) => {
    const now = performance.now();
    process.stderr.write(`crdgen timing: ${phase} ${(now - last).toFixed(0)} ms\n`);
    last = now;
  };
}

export async function generate(options: GenerateOptions): Promise<GenerateResult> {
  const timed = phaseTimer();
  timed("start-up (since the process started)");
  if (options.testsDir && !options.hooksDir)
    throw new Error("--tests needs --hooks: the scaffolded tests import your hooks");
  const outDir = path.normalize(options.outDir);
  const previous = await readLock(outDir);
  const texts = await readAllInputs(options);
  timed("read inputs");
  const versions = options.versions ?? "served";
  // Line and column are found only for what is reported: the fast parse keeps no positions.
  const positions = new SourcePositions(texts);
  const planned = await loadAndPlan(texts, options, { outDir, previous, timed }).catch((error: unknown) => {
    throw error instanceof InputError ? positions.locate(error) : error;
  });
  const { crds, skipped, files } = planned;
  const warnings = positions.locateAll(planned.warnings);
  // Every warning is known before anything is written: --strict fails with the output untouched.
  if (options.strict && warnings.length) throw new StrictWarningsError(warnings);
  if (options.format) {
    await formatGeneratedFiles(files);
    timed("format");
  }
  files.push(lockFor(files, crds, texts, { ...options, versions }, outDir));
  timed("lock file");
  const report = await applyPlan(files, {
    check: options.check ?? false,
    outDir,
    hooksDir: options.hooksDir,
    testsDir: options.testsDir,
    previousFiles: (previous?.files ?? []).map((f) => path.join(outDir, f.path)),
    previousLock: previous,
    crdNames: new Set(crds.map((c) => c.name)),
  });
  timed("write");
  return { crds, skipped, warnings, report };
}

/** With --strict, the warnings that stopped the run before it wrote anything. */
export class StrictWarningsError extends UserError {
  constructor(readonly warnings: InputWarning[]) {
    super(`--strict: ${warnings.length} warning(s); nothing written`);
  }
}

/** Load, model and emit: every file of the run, in memory, and the warnings met on the way. */
async function loadAndPlan(
  texts: InputText[],
  options: GenerateOptions,
  { outDir, previous, timed }: { outDir: string; previous: LockFile | undefined; timed: (phase: string) => void },
): Promise<{ crds: CrdModel[]; skipped: SkippedDocument[]; warnings: SchemaWarning[]; files: PlannedFile[] }> {
  const { crds: loaded, skipped, warnings: loadWarnings } = loadCrds(texts);
  timed("parse and check");
  const model = buildModels(loaded, {
    selection: options.versions ?? "served",
    rawSchemas: options.validation ?? false,
  });
  const warnings = [...loadWarnings, ...model.warnings];
  timed("model");
  const files = await plan(model.crds, warnings, options, outDir, previous);
  timed("emit");
  return { crds: model.crds, skipped, warnings, files };
}

/** The input texts: files, folders and stdin, then the CRDs named for --from-cluster. */
async function readAllInputs(options: GenerateOptions): Promise<InputText[]> {
  return [
    ...(options.inputs.length ? await readInputs(options.inputs, options.stdin) : []),
    // client-node and the runtime take a third of a second to load: only when CRDs come from a cluster.
    ...(options.fromCluster?.names.length
      ? await (await import("./load/read-cluster.js")).readClusterInputs(options.fromCluster)
      : []),
  ];
}

/** Every file of this run, planned; hooks files keep the paths the previous run's lock recorded. */
async function plan(
  crds: CrdModel[],
  warnings: SchemaWarning[],
  options: GenerateOptions,
  outDir: string,
  previous: LockFile | undefined,
): Promise<PlannedFile[]> {
  const previousHooks = new Map((previous?.crds ?? []).flatMap((c) => (c.hooks ? [[c.name, c.hooks] as const] : [])));
  return planFiles(crds, {
    outDir,
    hooksDir: options.hooksDir ? path.normalize(options.hooksDir) : undefined,
    testsDir: options.testsDir ? path.normalize(options.testsDir) : undefined,
    previousHooks,
    render: templateRenderer(options.templatesDir),
    // ajv and its standalone code load only with --validation.
    validationCode: options.validation
      ? (await import("./validation/version-validation.js")).versionValidationCode
      : undefined,
    warnings,
    progress: options.progress,
    webhooks: options.webhooks ?? false,
  });
}

/** crdgen.lock for this run: inputs and their hashes, generator version, options, and every file with its hash. */
function lockFor(
  files: PlannedFile[],
  crds: CrdModel[],
  inputs: Array<{ file: string; text: string }>,
  options: GenerateOptions & { versions: VersionSelection },
  outDir: string,
): PlannedFile {
  const hooksDir = options.hooksDir ? path.normalize(options.hooksDir) : undefined;
  const parsedHashes = new Map(crds.map((c) => [c.source.file, c.source.fileSha256]));
  const hooksOf = new Map(files.filter((f) => f.crdName !== undefined).map((f) => [f.crdName!, f.path]));
  const lock = newLock({
    generator: { name: "crdgen", version: generatorVersion },
    options: {
      versions: options.versions,
      // Folders relative to the lock's own, so the lock reads the same wherever the project is checked out.
      hooks: options.hooksDir ? lockPath(outDir, options.hooksDir) : null,
      tests: options.testsDir ? lockPath(outDir, options.testsDir) : null,
      templates: options.templatesDir ? lockPath(outDir, options.templatesDir) : null,
      format: options.format ?? false,
      validation: options.validation ?? false,
      ...(options.webhooks ? { webhooks: true } : {}),
    },
    // Every input holding a CRD was hashed as it was parsed: hashed once, not twice. Named as the headers name it.
    inputs: [...new Map(inputs.map((i) => [i.file, parsedHashes.get(i.file) ?? sha256(i.text)])).entries()].map(
      ([file, hash]) => ({ path: inputName(file).name, sha256: hash }),
    ),
    crds: crds.map((c) => {
      const hooks = hooksOf.get(c.name);
      return {
        name: c.name,
        kind: c.kind,
        group: c.group,
        versions: c.versions.map((v) => v.name),
        storageVersion: c.storageVersion ?? null,
        hooks: hooks !== undefined && hooksDir !== undefined ? lockPath(hooksDir, hooks) : null,
      };
    }),
    files: files
      .filter((f) => f.owner === "generator")
      .map((f) => ({ path: lockPath(outDir, f.path), sha256: sha256(f.content) })),
    userFiles: files.filter((f) => f.owner === "user").map((f) => lockPath(outDir, f.path)),
  });
  return { path: path.join(outDir, lockFileName), content: renderLock(lock), owner: "generator" };
}
