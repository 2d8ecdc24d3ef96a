// Strings from a CRD or the command line are data in generated code, never code: literals go through tsLiteral,
// comments through escapeInvisible / lineCommentText, and the header's input path cannot end its comment line.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { stringify } from "yaml";
import { generate } from "../../../generator/generate.js";
import { InputError } from "../../../generator/input-error.js";
import { parseCrds } from "../../../generator/load/parse-crds.js";
import { buildModels } from "../../../generator/model/resource-model.js";
import { planFiles } from "../../../generator/emit/plan-files.js";
import { templateRenderer } from "../../../generator/emit/templates.js";
import { commentSafe } from "../../../generator/emit/jsdoc.js";
import { lineCommentText, tsLiteral } from "../../../generator/ts-literal.js";
import { compileOutput, repoTempDir } from "../support/compile-output.js";

const scratch = mkdtempSync(path.join(tmpdir(), "crdgen-hostile-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

const crdYaml = (description = "A widget.") =>
  stringify({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.hostile.example.com" },
    spec: {
      group: "hostile.example.com",
      names: { kind: "Widget", plural: "widgets", shortNames: ["wd"] },
      scope: "Namespaced",
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: { spec: { type: "object", description, properties: { size: { type: "integer" } } } },
            },
          },
        },
      ],
    },
  });

const ran = () => (globalThis as { crdgenPayloadRan?: boolean }).crdgenPayloadRan;

/** Every token of a file outside comments, from TypeScript's own scanner. */
function codeTokens(text: string): string[] {
  const tokens: string[] = [];
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, text);
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan())
    tokens.push(scanner.getTokenText());
  return tokens;
}

test("tsLiteral round-trips any string as one literal, with invisible characters escaped", () => {
  const hostile = 'x" + process.exit(1) + "`${1}`\u2028\u202e\u2066\u0000\u001b\ufeff';
  const literal = tsLiteral(hostile);
  assert.equal(JSON.parse(literal), hostile);
  assert.equal(codeTokens(literal).length, 1, "one string literal token");
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  assert.doesNotMatch(literal, /[\u0000-\u001f\u2028\u202e\u2066\ufeff]/);
  assert.ok(literal.includes("\\u202e") && literal.includes("\\u2066") && literal.includes("\\u0000"));
});

test("comment text: bidi overrides, isolates, NUL and other controls become visible escapes", () => {
  const text = "safe\u202e}; evil(); {\u202c \u2066x\u2069 nul\u0000 esc\u001b[31m del\u007f c1\u0085 zw\u200b";
  const block = commentSafe(text);
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  assert.doesNotMatch(block, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b\u202a-\u202e\u2066-\u2069]/);
  for (const escaped of ["\\u202e", "\\u202c", "\\u2066", "\\u2069", "\\u0000", "\\u001b", "\\u007f", "\\u0085"])
    assert.ok(block.includes(escaped), escaped);
  const line = lineCommentText("a\nb\r\u2028c */ d");
  assert.equal(line, "a\\u000ab\\u000d\\u2028c *\\/ d");
});

test("a description with bidi overrides and control characters is escaped in the generated JSDoc", async () => {
  const file = path.join(scratch, "bidi.yaml");
  const description = "Access level.\u202e nimda = level \u2066//\u2069 \u0000 \u001b[2J end";
  writeFileSync(file, crdYaml(description));
  const outDir = path.join(scratch, "bidi-out");
  await generate({ inputs: [file], outDir });
  const types = readFileSync(path.join(outDir, "hostile.example.com/v1/widget.types.ts"), "utf8");
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  assert.doesNotMatch(types, /[\u0000\u001b\u202a-\u202e\u2066-\u2069]/, "no raw control or bidi character");
  const source = ts.createSourceFile("widget.types.ts", types, ts.ScriptTarget.Latest, true);
  const spec = source.statements.find((s) => ts.isInterfaceDeclaration(s) && s.name.text === "WidgetSpec")!;
  assert.deepEqual(
    ts.getJSDocCommentsAndTags(spec).map((c) => ts.getTextOfJSDocComment(c.comment)),
    ["Access level.\\u202e nimda = level \\u2066//\\u2069 \\u0000 \\u001b[2J end"],
    "the comment says exactly which characters are there",
  );
});

test("an input path that holds a line break and code stays inside the header comment", async () => {
  const folder = path.join(scratch, "a\nprocess.exit(1);/*");
  mkdirSync(folder, { recursive: true }); // "/*" makes a folder "*" inside it
  const file = path.join(folder, "crd\u202e.yaml");
  writeFileSync(file, crdYaml());
  const outDir = path.join(scratch, "header-out");
  // Headers name an input relative to the project (the folder crdgen runs in): run where the whole path is named.
  const cwd = process.cwd();
  process.chdir(scratch);
  try {
    await generate({ inputs: [file], outDir });
  } finally {
    process.chdir(cwd);
  }
  const typesPath = path.join(outDir, "hostile.example.com/v1/widget.types.ts");
  const types = readFileSync(typesPath, "utf8");
  const [header = "", second = ""] = types.split("\n");
  assert.ok(header.startsWith("// Code generated by crdgen "), header);
  assert.ok(header.includes(" from a\\u000aprocess.exit(1);/*\\/crd\\u202e.yaml. DO NOT EDIT."), header);
  assert.ok(header.endsWith(". DO NOT EDIT."), header);
  assert.ok(second.startsWith("// Types of Widget"), "the second line is the template's own");
  assert.ok(!codeTokens(types).includes("process"), "process appears only inside comments");
  // And the module runs: had the header leaked, importing it would exit this test process.
  const js = ts.transpileModule(types, { compilerOptions: { module: ts.ModuleKind.ESNext } }).outputText;
  const module = (await import(`data:text/javascript,${encodeURIComponent(js)}`)) as {
    widgetResource: { plural: string };
  };
  assert.equal(module.widgetResource.plural, "widgets");
});

test("--from-cluster: a kubeconfig context's name is escaped in headers, and a served CRD is validated like a file", async () => {
  let served: Record<string, unknown> = {};
  const server = createServer((_, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(served));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const context = "ctx\nprocess.exit(1);/*";
  const kubeconfig = path.join(scratch, "kubeconfig");
  writeFileSync(
    kubeconfig,
    stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        {
          name: "c",
          cluster: {
            server: `http://127.0.0.1:${port}`,
            "insecure-skip-tls-verify": true,
            extensions: [
              { name: "crdgen.dev/credentials-over-http", extension: { server: `http://127.0.0.1:${port}` } },
            ],
          },
        },
      ],
      users: [{ name: "u", user: { token: "t" } }],
      contexts: [{ name: context, context: { cluster: "c", user: "u" } }],
      "current-context": context,
    }),
  );
  const previous = process.env["KUBECONFIG"];
  process.env["KUBECONFIG"] = kubeconfig;
  try {
    served = JSON.parse(JSON.stringify((await import("yaml")).parse(crdYaml()))) as Record<string, unknown>;
    const outDir = path.join(scratch, "cluster-out");
    await generate({ inputs: [], fromCluster: { names: ["widgets.hostile.example.com"] }, outDir });
    const header = readFileSync(path.join(outDir, "hostile.example.com/v1/widget.types.ts"), "utf8").split("\n")[0]!;
    assert.ok(header.includes("from cluster ctx\\u000aprocess.exit(1);/*: customresourcedefinitions/widgets."), header);

    (served["spec"] as { names: Record<string, unknown> }).names["plural"] = 'x"+process.exit(1)+"';
    await assert.rejects(
      generate({ inputs: [], fromCluster: { names: ["widgets.hostile.example.com"] }, outDir: `${outDir}-2` }),
      (error: unknown) =>
        error instanceof InputError &&
        error.location.schemaPath === "/spec/names/plural" &&
        error.location.file.startsWith("cluster ctx\nprocess.exit(1);/*: ") &&
        error.problem.startsWith('spec.names.plural: Invalid value: "x\\"+process.exit(1)+\\"": a DNS-1035 label'),
    );
  } finally {
    if (previous === undefined) delete process.env["KUBECONFIG"];
    else process.env["KUBECONFIG"] = previous;
    server.close();
  }
});

test("even past validation, hostile names in every literal, path and comment stay data: the output compiles and runs", async () => {
  // Validation rejects these names (validate-crd.test.ts); here the model is edited after it, to show the emitters
  // alone keep them inert. No "/" in it: the group and version are folder names.
  const payload =
    'x" + String((() => { globalThis.crdgenPayloadRan = true; })()) + "`${globalThis.crdgenPayloadRan = true}`\u202e';
  const { crds } = buildModels(parseCrds([{ file: "hostile.yaml", text: crdYaml() }]).crds);
  const crd = crds[0]!;
  Object.assign(crd, {
    group: payload,
    name: payload,
    plural: payload,
    singular: payload,
    listKind: "WidgetList",
    shortNames: [payload],
    categories: [payload],
    storageVersion: payload,
  });
  Object.assign(crd.versions[0]!, { name: payload, deprecated: true, deprecationWarning: payload });
  const dir = repoTempDir("hostile-");
  try {
    const files = planFiles(crds, {
      outDir: path.join(dir, "generated"),
      hooksDir: path.join(dir, "src"),
      testsDir: path.join(dir, "test"),
      render: templateRenderer(),
    });
    for (const f of files) {
      mkdirSync(path.dirname(f.path), { recursive: true });
      writeFileSync(f.path, f.content);
    }
    const compiled = compileOutput(dir);
    assert.equal(compiled.status, 0, `the output compiles under strict TypeScript:\n${compiled.output}`);
    const versionDir = path.join(compiled.jsDir, "generated", payload, payload);
    const types = (await import(pathToFileURL(path.join(versionDir, "widget.types.js")).href)) as {
      widgetResource: Record<string, unknown>;
    };
    assert.deepEqual(
      { ...types.widgetResource },
      {
        group: payload,
        version: payload,
        apiVersion: `${payload}/${payload}`,
        kind: "Widget",
        listKind: "WidgetList",
        plural: payload,
        singular: payload,
        shortNames: [payload],
        scope: "Namespaced",
        namespaced: true,
        storage: true,
        storageVersion: payload,
        deprecationWarning: payload,
      },
      "every name is exactly the string it was",
    );
    // The client and controller modules load too (they import the runtime), and the payload still has not run.
    await import(pathToFileURL(path.join(versionDir, "widget.client.js")).href);
    await import(pathToFileURL(path.join(versionDir, "widget.controller.js")).href);
    await import(pathToFileURL(path.join(compiled.jsDir, "generated", "index.js")).href);
    assert.equal(ran(), undefined, "the payload never ran");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
