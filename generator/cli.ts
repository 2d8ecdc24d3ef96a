// The crdgen command line: commander wiring only; the work happens in generate.ts.
import { Command, Option } from "commander";
import { statSync } from "node:fs";
import path from "node:path";
import { progressBar, progressThreshold } from "./progress-bar.js";
import { formatLocation, formatWarning, terminalText, type InputLocation, type InputWarning } from "./input-error.js";
import { escapeInvisible } from "./ts-literal.js";
import { UserError } from "./user-error.js";
import { generatorVersion } from "./version.js";
import { envtestCommand } from "./envtest/envtest-command.js";

// Each command loads its own modules when it runs, so `crdgen --help` and `generate` never load explore's parsers.
const program = new Command("crdgen")
  .description(
    "Turn Kubernetes CustomResourceDefinitions into a TypeScript operator: types, typed clients, listers, informers, controller wiring and reconcile hooks.",
  )
  .version(generatorVersion)
  .showHelpAfterError();

program
  .command("generate")
  .description(
    "Generate TypeScript from CRD YAML files (a folder means every *.yaml/*.yml in it; - reads stdin) and/or CRDs read from a cluster.",
  )
  .argument("[inputs...]", "CRD files, folders or - for stdin")
  .option(
    "--from-cluster <crd-names...>",
    "also read these CRDs (<plural>.<group>) from the cluster of the current kubeconfig context (KUBECONFIG or ~/.kube/config)",
  )
  .option("--kube-context <name>", "with --from-cluster: the kubeconfig context to use instead of the current one")
  // kubectl's spelling, accepted as well: the operator's own flag (and crdgen's) is --kube-context.
  .addOption(new Option("--context <name>").hideHelp())
  .requiredOption("-o, --out <dir>", "folder for generator-owned files (rewritten on every run)")
  .option(
    "--hooks <dir>",
    "folder for user-owned files: a <kind>.hooks.ts per controller and main.ts, created once and never overwritten",
  )
  .option(
    "--tests <dir>",
    "with --hooks: folder where example tests of each kind are created once (user-owned): <kind>.hooks.test.ts on @crdgen/runtime/testing (its context from the generated <kind>.testing.ts), <kind>.webhooks.test.ts with --webhooks, and <kind>.e2e.test.ts on a local control plane (crdgen envtest) for a CRD read from a file",
  )
  .option(
    "--templates <dir>",
    "folder with your own copies of crdgen's templates (<name>.ts.hbs) to use instead of the packaged ones",
  )
  .addOption(
    new Option("--versions <which>", "which CRD versions to generate")
      .choices(["served", "storage", "all"])
      .default("served"),
  )
  .option(
    "--validation",
    "also emit <kind>.validation.ts per version: apply<Kind>Defaults, normalize<Kind> and validate<Kind> (ajv compiled now, CEL rules at run time), as the API server defaults and validates",
  )
  .option(
    "--webhooks",
    "also emit each kind's admission webhook wiring (and, for several versions, conversion through the storage version); with --hooks a <kind>.webhooks.ts (default, validateCreate, validateUpdate, validateDelete) and a <kind>.conversion.ts, created once",
  )
  .option("--check", "write nothing; exit 1 and list the files that would change (for CI)")
  .option(
    "--strict",
    "a warning is an error: exit 1 and write nothing (a schema node typed as unknown, an unknown field)",
  )
  .option("--format", "one formatter pass over the generated files (the templates already emit formatted code)")
  .action(async (inputs: string[], opts: GenerateFlags) => {
    if (opts.tests && !opts.hooks)
      throw new UsageError("--tests needs --hooks: the scaffolded tests import your hooks");
    if (inputs.length === 0 && !opts.fromCluster?.length)
      program.commands[0]!.error(
        "error: missing required argument 'inputs': give CRD files or folders, - for stdin, or --from-cluster <crd-names...>",
      );
    // A progress bar on a terminal when there are more than a few CRD files (the count of CRDs is known only after
    // parsing).
    const bar =
      inputs.length > progressThreshold || inputs.some((i) => i !== "-" && isDirectory(i)) ? progressBar() : undefined;
    const { generate, StrictWarningsError } = await import("./generate.js");
    const result = await generate(generateOptions(inputs, opts, bar))
      .catch((error: unknown) => {
        if (error instanceof StrictWarningsError) printWarnings(error.warnings);
        throw error;
      })
      .finally(() => bar?.done());
    printWarnings(result.warnings);
    printSkipped(result.skipped);
    printReport(result, opts.check ?? false);
  });

interface GenerateFlags {
  format?: boolean;
  out: string;
  hooks?: string;
  tests?: string;
  templates?: string;
  versions: "served" | "storage" | "all";
  check?: boolean;
  strict?: boolean;
  validation?: boolean;
  webhooks?: boolean;
  fromCluster?: string[];
  kubeContext?: string;
  context?: string;
}

/** The generate call's options from the command line's. */
function generateOptions(inputs: string[], opts: GenerateFlags, bar: ReturnType<typeof progressBar> | undefined) {
  const context = kubeContext(opts);
  return {
    inputs,
    format: opts.format,
    progress: bar ? (done: number, total: number) => total > progressThreshold && bar.update(done, total) : undefined,
    fromCluster: opts.fromCluster?.length ? { names: opts.fromCluster, ...(context ? { context } : {}) } : undefined,
    outDir: opts.out,
    hooksDir: opts.hooks,
    testsDir: opts.tests,
    templatesDir: opts.templates,
    versions: opts.versions,
    validation: opts.validation ?? false,
    webhooks: opts.webhooks ?? false,
    check: opts.check ?? false,
    strict: opts.strict ?? false,
  };
}

/** What a generate run did (or, with --check, would do): hook updates, broken user files, then one summary. */
function printReport(result: Awaited<ReturnType<typeof import("./generate.js").generate>>, check: boolean): void {
  const { changed, removed, unchanged, userKept, hookUpdates } = result.report;
  for (const h of hookUpdates) {
    process.stderr.write(
      `hooks changed: ${h.file} was left as it is (${h.details}); ${check ? "without --check the new template would be written to" : "the new template is in"} ${h.newFile}\n`,
    );
  }
  printBrokenUserFiles(result.report);
  const versions = result.crds.reduce((n, c) => n + c.versions.length, 0);
  if (!check) {
    for (const f of removed) process.stderr.write(`removed: ${f} (no longer generated)\n`);
    process.stdout.write(
      `crdgen: ${result.crds.length} CRD(s), ${versions} version(s): ${changed.length} file(s) written, ${unchanged.length} unchanged, ${removed.length} removed, ${userKept.length} user-owned kept.\n`,
    );
  } else if (changed.length || removed.length) {
    const lines = [
      ...changed.map((f) => `  ${f}\n`),
      ...removed.map((f) => `  ${f} (no longer generated: would be removed)\n`),
    ];
    process.stderr.write(
      `crdgen generate --check: ${lines.length} file(s) would change:\n${lines.join("")}Run crdgen generate without --check to update them.\n`,
    );
    process.exitCode = 1;
  } else {
    process.stdout.write(
      `crdgen generate --check: up to date (${result.crds.length} CRD(s), ${versions} version(s)).\n`,
    );
  }
}

program
  .command("init")
  .description(
    "Scaffold a new operator project: package.json (generate, build, start, test scripts), tsconfig, crds/, README.",
  )
  .argument("<dir>", "a new or empty folder")
  .option("--name <name>", "the package name (default: the folder's name)")
  .option("--webhooks", "the generate scripts pass --webhooks (admission webhooks and conversion for each kind)")
  .option("--crdgen-spec <spec>", "npm spec of crdgen (default: ^version, or this copy packed into vendor/)")
  .option("--runtime-spec <spec>", "npm spec of @crdgen/runtime (default: as for crdgen)")
  .action(
    async (dir: string, opts: { name?: string; webhooks?: boolean; crdgenSpec?: string; runtimeSpec?: string }) => {
      const { initProject } = await import("./init/scaffold-project.js");
      const { initSummary } = await import("./init/init-summary.js");
      const result = await initProject({
        dir,
        ...(opts.name ? { name: opts.name } : {}),
        webhooks: opts.webhooks ?? false,
        crdgenSpec: opts.crdgenSpec,
        runtimeSpec: opts.runtimeSpec,
      });
      process.stdout.write(initSummary(dir, result));
    },
  );

/** User files a run leaves broken (a CRD removed, a version renamed): one line each, with what to do. */
const printBrokenUserFiles = (report: { orphans: string[]; staleImports: string[] }) => {
  for (const line of [...report.orphans, ...report.staleImports]) process.stderr.write(`${line}\n`);
};

/** One line each, with the file's and the message's invisible characters escaped. */
const printWarnings = (warnings: InputWarning[]) => {
  for (const w of warnings) process.stderr.write(`warning: ${formatWarning(w)}\n`);
};

/** Documents that are not CRDs: their kind and apiVersion come from the input, escaped like a location. */
const printSkipped = (skipped: Array<InputLocation & { kind: string; apiVersion: string }>) => {
  for (const s of skipped) {
    const what = `${terminalText(s.kind || "no kind")} ${terminalText(s.apiVersion)}`;
    process.stderr.write(`skipped: ${formatLocation(s)}: ${what} is not a CustomResourceDefinition\n`);
  }
};

envtestCommand(program);

const isDirectory = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/** A wrong combination of options: said in one line, like commander's own errors. */
class UsageError extends UserError {}

/** --kube-context, or kubectl's --context: one setting with two spellings (the operator's flags take both too). */
function kubeContext(opts: { kubeContext?: string; context?: string }): string | undefined {
  if (opts.kubeContext !== undefined && opts.context !== undefined && opts.kubeContext !== opts.context)
    throw new UsageError("--kube-context and --context name the same setting: give one");
  return opts.kubeContext ?? opts.context;
}

/**
 * explore is an optional peer package: its parsers (tree-sitter's Go grammar among them) are not installed with every
 * operator that only generates code.
 */
async function loadExplore(): Promise<typeof import("@crdgen/explore")> {
  try {
    return await import("@crdgen/explore");
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "ERR_MODULE_NOT_FOUND" && String(error).includes("@crdgen/explore")) {
      throw new UserError("crdgen explore needs the package @crdgen/explore: npm install --save-dev @crdgen/explore");
    }
    throw error;
  }
}

program
  .command("explore")
  .description(
    "Map an operator's event flow in Go and TypeScript sources: informer → handler → workqueue → worker loop → processing function.",
  )
  .argument(
    "<dirs...>",
    "folders to read (several folders are linked together, e.g. an operator and the library it imports)",
  )
  .option("--json", "print the flows as JSON")
  .addOption(
    new Option("--format <format>", "output format")
      .choices(["text", "json", "mermaid", "dot", "html"])
      .default("text"),
  )
  .option(
    "--kind <Kind>",
    "only the flows of this watched kind, in every format (an unknown kind is an error that lists the kinds found)",
  )
  .option(
    "--link-template <url>",
    "html: each file:line links here; {path} (as reported), {abspath} and {line} are filled in (default: file://)",
  )
  .option("--include-vendor", "also read vendor/ and node_modules/")
  .option("--include-tests", "also read tests (*_test.go, *.test.ts, *.spec.ts, test/, tests/, testdata/, e2e/)")
  .option("--no-go-types", "read Go by syntax only (default: Go's type checker, built on first use, where Go is found)")
  .action(
    async (
      dirs: string[],
      opts: {
        json?: boolean;
        format: "text" | "json" | "mermaid" | "dot" | "html";
        kind?: string;
        linkTemplate?: string;
        includeVendor?: boolean;
        includeTests?: boolean;
        goTypes: boolean;
      },
    ) => {
      const explorePackage = await loadExplore();
      const { explore, ExploreInputError, filterByKind, graphSize, graphSizeNote, unsupportedLanguages } =
        explorePackage;
      const { textReport, jsonReport, mermaidReport, dotReport, htmlReport, commonAncestor } = explorePackage;
      // A folder that cannot be read or an unknown --kind is the user's to fix: said in one line, like the other
      // commands' input errors.
      const userError = (error: unknown) => (error instanceof ExploreInputError ? new UserError(error.message) : error);
      const found = await explore(dirs, {
        includeVendor: opts.includeVendor ?? false,
        goTypes: opts.goTypes,
        includeTests: opts.includeTests ?? false,
      }).catch((error: unknown) => {
        throw userError(error);
      });
      // A tree in other languages only is not an operator explore can map: a report of nothing would mislead.
      const unsupported = unsupportedLanguages(found);
      if (unsupported) throw new UserError(unsupported);
      let result = found;
      try {
        if (opts.kind !== undefined) result = filterByKind(found, opts.kind);
      } catch (error) {
        throw userError(error);
      }
      const format = opts.json ? "json" : opts.format;
      const root = commonAncestor(dirs.map((d) => path.resolve(d)));
      const html = (r: typeof result) =>
        htmlReport(r, { root, ...(opts.linkTemplate ? { linkTemplate: opts.linkTemplate } : {}) });
      const render = { text: textReport, json: jsonReport, mermaid: mermaidReport, dot: dotReport, html }[format];
      process.stdout.write(render(result));
      const note = format === "mermaid" || format === "dot" ? graphSizeNote(graphSize(result).nodes) : undefined;
      if (note) process.stderr.write(`crdgen explore: ${note}\n`);
      if (format !== "text" && result.controllers.length === 0)
        process.stderr.write("crdgen explore: no controller found\n");
    },
  );

try {
  await program.parseAsync(process.argv);
} catch (error) {
  // Messages may quote paths and names from the input: whatever reached them unescaped cannot restyle the terminal.
  const message =
    error instanceof UserError
      ? error.message
      : error instanceof Error
        ? (error.stack ?? error.message)
        : String(error);
  process.stderr.write(`crdgen: ${escapeInvisible(message)}\n`);
  process.exitCode = 1;
}
