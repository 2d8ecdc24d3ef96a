// crdgen init <dir>: a new operator project in which `npm run generate && npm test` works as soon as a CRD is in crds/.
import { mkdir, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { UserError } from "../user-error.js";
import { generatorVersion } from "../version.js";
import { deployFiles, deployReadme, deployScripts } from "./deploy-files.js";
import { packageSources, type PackageSource } from "./package-sources.js";

export interface InitOptions {
  dir: string;
  /** package.json "name"; default: the folder's name, made a valid npm name. */
  name?: string;
  /** The generate scripts pass --webhooks: each kind also gets admission webhook wiring and its user-owned hooks. */
  webhooks?: boolean;
  /** npm specs for the project's crdgen and @crdgen/runtime; default: see packageSources. */
  crdgenSpec?: string | undefined;
  runtimeSpec?: string | undefined;
}

export interface InitResult {
  created: string[];
  /** Where the project's crdgen and @crdgen/runtime come from. */
  sources: PackageSource[];
}

/** Where the project's two crdgen packages come from. */
type Sources = { crdgen: PackageSource; runtime: PackageSource };

/** Thrown when the folder is not empty: init never writes over anything. */
export class InitError extends UserError {}

export async function initProject(options: InitOptions): Promise<InitResult> {
  const dir = path.resolve(options.dir);
  const existing = await readdir(dir).catch((error: unknown) => {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === "ENOENT") return [];
    throw new InitError(`cannot use ${options.dir}: ${code ?? message}`);
  });
  if (existing.length > 0)
    throw new InitError(
      `${options.dir} is not empty (${existing.slice(0, 5).join(", ")}${existing.length > 5 ? ", ..." : ""}); crdgen init writes only into a new or empty folder`,
    );
  const name = options.name ?? npmName(path.basename(dir));
  await mkdir(path.join(dir, "crds"), { recursive: true });
  const sources = await packageSources(dir, generatorVersion, {
    crdgen: options.crdgenSpec,
    runtime: options.runtimeSpec,
  });
  const files = projectFiles(name, options.webhooks ?? false, sources);
  for (const [file, content] of files) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), content, { flag: "wx" });
  }
  const packed = [sources.crdgen, sources.runtime].flatMap((s) => (s.packedFrom ? [s.spec.replace(/^file:/, "")] : []));
  return { created: [...files.keys(), ...packed], sources: [sources.crdgen, sources.runtime] };
}

/** What --webhooks adds to the scaffold's README: its user-owned files and the switch that turns the server off. */
const webhooksReadme = `
   With webhooks (\`--webhooks\` in the generate scripts), each kind also gets \`src/<kind>.webhooks.ts\` (defaulting
   and validation) with its test \`test/<kind>.webhooks.test.ts\` (AdmissionReviews in, responses out: no cluster)
   and, for a CRD with several versions, \`src/<kind>.conversion.ts\`; the operator then serves them over HTTPS on
   :9443 with the certificate in \`--webhook-cert-path\` (\`ENABLE_WEBHOOKS=false\` runs without).`;

/** The scaffold README's note on packages packed into vendor/: what they are and how to move to a release. */
function vendored(sources: Sources): string {
  const packed = [sources.crdgen, sources.runtime].filter((s) => s.packedFrom);
  if (packed.length === 0) return "";
  const names = packed.map((s) => `\`${s.name}\``).join(" and ");
  return `
${names} did not come from a registry: \`crdgen init\` packed the copies it ran from (a checkout or tarballs) into
\`vendor/\`, and package.json depends on those tarballs (\`file:vendor/...\`). Commit them, or replace those specs with
version ranges once the packages are released.
`;
}

/** A folder name as an npm package name: lower case, and only the characters npm allows. */
function npmName(folder: string): string {
  const name = folder
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[._-]+/, "");
  return name || "operator";
}

function projectFiles(name: string, webhooks: boolean, sources: Sources): Map<string, string> {
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  const generate = `crdgen generate crds --out src/generated --hooks src --tests test${webhooks ? " --webhooks" : ""}`;
  const files = new Map<string, string>();
  files.set(
    "package.json",
    json({
      name,
      version: "0.1.0",
      private: true,
      type: "module",
      engines: { node: ">=20" },
      scripts: {
        generate,
        "generate:check": `${generate} --check`,
        // dist/ emptied first: tsc never removes the output of a source that is gone (a removed CRD's test would run).
        build: "node -e \"fs.rmSync('dist', { recursive: true, force: true })\" && tsc -p .",
        start: "node dist/src/main.js",
        // Unit tests only: the e2e tests need the control plane's binaries, whose folder crdgen envtest prints
        // (building them once).
        test: "npm run build && node --test $(find dist/test -name '*.test.js' ! -name '*.e2e.test.js')",
        "test:e2e": `npm run build && KUBEBUILDER_ASSETS="$(crdgen envtest)" node --test $(find dist/test -name '*.e2e.test.js')`,
        ...deployScripts(name),
      },
      dependencies: {
        "@crdgen/runtime": sources.runtime.spec,
        "@kubernetes/client-node": "^1.4.0",
      },
      // crdgen runs at generate time only, so it is not needed where the operator runs.
      devDependencies: {
        crdgen: sources.crdgen.spec,
        "@types/node": "^20.19.0",
        typescript: "~5.9",
      },
    }),
  );
  files.set(
    "tsconfig.json",
    json({
      compilerOptions: {
        target: "ES2022",
        lib: ["ES2023"],
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        noUncheckedIndexedAccess: true,
        noImplicitOverride: true,
        esModuleInterop: true,
        forceConsistentCasingInFileNames: true,
        skipLibCheck: true,
        sourceMap: true,
        types: ["node"],
        rootDir: ".",
        outDir: "dist",
      },
      include: ["src/**/*.ts", "test/**/*.ts"],
    }),
  );
  files.set(".gitignore", "node_modules/\ndist/\n");
  files.set("crds/.gitkeep", "");
  for (const [file, content] of deployFiles(name, webhooks)) files.set(file, content);
  files.set(
    "README.md",
    `# ${name}

A Kubernetes operator generated by crdgen.

1. Put your CustomResourceDefinitions (\`apiextensions.k8s.io/v1\` YAML) in \`crds/\`.
2. \`npm install\`, then \`npm run generate\`: typed resources, clients, listers, informers and controllers go to
   \`src/generated/\` (crdgen's, rewritten on every run; commit them and \`src/generated/crdgen.lock\`), and once per
   kind crdgen creates files that are yours and never overwrites: \`src/<kind>.hooks.ts\` (your reconcile logic),
   \`src/main.ts\`, \`test/<kind>.hooks.test.ts\` and \`test/<kind>.e2e.test.ts\`.${webhooks ? webhooksReadme : ""}
3. \`npm test\` builds and runs the tests (hooks against \`@crdgen/runtime/testing\`'s in-memory FakeCluster).
   \`npm run test:e2e\` also runs the end-to-end tests: your controllers against a local control plane (etcd and
   kube-apiserver, no nodes). Their binaries come from \`npx crdgen envtest\`, which prints their folder:
   \`KUBEBUILDER_ASSETS\` if you set it (setup-envtest's folders do), else crdgen's cache (\`~/.cache/crdgen\`), built
   there once from Go modules (this needs Go; it takes a while, later runs reuse it). By hand:
   \`export KUBEBUILDER_ASSETS=$(npx crdgen envtest)\`, then \`npm test\` runs them too.
4. \`npm start\` runs the operator against the current kubeconfig context (\`-- --help\` lists its flags).${deployReadme}
In CI, \`npm run generate:check\` fails when the generated code is not up to date with \`crds/\`.
${vendored(sources)}`,
  );
  return files;
}
