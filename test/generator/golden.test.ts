// Golden tests: every schema fixture and the MySQL sample generate exactly their committed files, and the type rules
// hold in them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isMainThread } from "node:worker_threads";
import ts from "typescript";
import { parse, stringify } from "yaml";
import { generate } from "../../generator/generate.js";
import { readTree } from "./support/read-tree.js";
import { formatLocation } from "../../generator/input-error.js";
import type { SchemaWarning } from "../../generator/model/normalize-schema.js";

/** The repository root: this file runs as dist/test/generator/golden.test.js. */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
// Every generated header names its input as given, so inputs are passed relative to the repository root (npm test runs
// there).
if (process.cwd() !== repoRoot && isMainThread) process.chdir(repoRoot);
const repoPath = (...segments: string[]) =>
  path
    .relative(process.cwd(), path.join(repoRoot, ...segments))
    .split(path.sep)
    .join("/");

const fixturesDir = path.join(repoRoot, "test", "fixtures", "schema");
const fixtureNames = readdirSync(fixturesDir, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();
const updateGolden = process.env["UPDATE_GOLDEN"] === "1";

interface Generated {
  /** Relative path (with "/") -> content, for every generator-owned file under the output folder. */
  files: Map<string, string>;
  warnings: string[];
}

const formatWarning = (w: SchemaWarning) => `${formatLocation(w)}: ${w.message}`;

/** Runs the generator on one input into a fresh temporary folder and reads back what it wrote. */
async function generateFrom(
  input: string,
  options: { hooks?: boolean; webhooks?: boolean } = {},
): Promise<Generated & { outDir: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), "crdgen-golden-"));
  try {
    const outDir = path.join(dir, "generated");
    const result = await generate({
      inputs: [input],
      outDir,
      hooksDir: options.hooks ? path.join(dir, "src") : undefined,
      webhooks: options.webhooks ?? false,
    });
    return { outDir, files: await readTree(outDir), warnings: result.warnings.map(formatWarning) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const generatedCache = new Map<string, Promise<Generated>>();
/** The generator's output for a fixture, computed once per test run. */
function fixture(name: string): Promise<Generated> {
  let pending = generatedCache.get(name);
  if (!pending) {
    pending = generateFrom(repoPath("test", "fixtures", "schema", name, "crd.yaml"));
    generatedCache.set(name, pending);
  }
  return pending;
}

/** The one *.types.ts file of a fixture's given version (or its only version). */
async function typesOf(name: string, version = "v1"): Promise<string> {
  const { files } = await fixture(name);
  const matches = [...files.keys()].filter((f) => f.endsWith(".types.ts") && f.split("/").at(-2) === version);
  assert.equal(matches.length, 1, `${name} has exactly one ${version} types file: ${matches.join(", ")}`);
  return files.get(matches[0]!)!;
}

function assertSameTree(actual: Map<string, string>, expected: Map<string, string>, what: string): void {
  assert.deepEqual([...actual.keys()], [...expected.keys()], `${what}: the same files`);
  for (const [file, content] of actual)
    assert.equal(content, expected.get(file), `${what}: ${file} differs from the committed file`);
}

// ---------------------------------------------------------------------------------------------------------------
// Reading generated declarations with the TypeScript parser, so assertions do not depend on formatting.

interface Member {
  optional: boolean;
  type: string;
  tags: Array<{ name: string; text: string }>;
}

interface Declarations {
  source: ts.SourceFile;
  interfaces: Map<string, { members: Map<string, Member>; index?: string; tags: Member["tags"] }>;
  aliases: Map<string, string>;
  consts: Map<string, string>;
}

/** A JSDoc tag's text with its wrapped lines joined by single spaces. */
function joinedComment(tag: ts.JSDocTag): string {
  const text = typeof tag.comment === "string" ? tag.comment : (ts.getTextOfJSDocComment(tag.comment) ?? "");
  return text.replace(/\s*\n\s*/g, " ");
}

function declarationsOf(text: string): Declarations {
  const source = ts.createSourceFile("types.ts", text, ts.ScriptTarget.Latest, true);
  const result: Declarations = { source, interfaces: new Map(), aliases: new Map(), consts: new Map() };
  // A tag's text as a reader sees it: a long one is wrapped over several lines, which JSDoc joins again.
  const tagsOf = (node: ts.Node) =>
    ts.getJSDocTags(node).map((t) => ({ name: t.tagName.text, text: joinedComment(t) }));
  for (const statement of source.statements) {
    if (ts.isInterfaceDeclaration(statement)) {
      const members = new Map<string, Member>();
      let index: string | undefined;
      for (const m of statement.members) {
        if (ts.isPropertySignature(m)) {
          const key = ts.isStringLiteral(m.name) || ts.isIdentifier(m.name) ? m.name.text : m.name.getText(source);
          members.set(key, { optional: m.questionToken !== undefined, type: m.type!.getText(source), tags: tagsOf(m) });
        } else if (ts.isIndexSignatureDeclaration(m)) {
          index = m.type.getText(source);
        }
      }
      result.interfaces.set(statement.name.text, { members, index, tags: tagsOf(statement) });
    } else if (ts.isTypeAliasDeclaration(statement)) {
      result.aliases.set(statement.name.text, statement.type.getText(source));
    } else if (ts.isVariableStatement(statement)) {
      for (const d of statement.declarationList.declarations) {
        if (ts.isIdentifier(d.name) && d.initializer) result.consts.set(d.name.text, d.initializer.getText(source));
      }
    }
  }
  return result;
}

/** The interface called name, or the one it is an alias of (a repeated subtree is declared once, see structural-ids.ts). */
function iface(d: Declarations, name: string) {
  const target = d.aliases.get(name);
  const found = d.interfaces.get(target !== undefined && d.interfaces.has(target) ? target : name);
  assert.ok(found, `interface ${name} is declared (found: ${[...d.interfaces.keys()].join(", ")})`);
  return found;
}

function member(d: Declarations, interfaceName: string, key: string): Member {
  const found = iface(d, interfaceName).members.get(key);
  assert.ok(found, `${interfaceName} has the key ${JSON.stringify(key)}`);
  return found;
}

/** The values of `export const <name> = [...] as const`, parsed back from the generated text. */
function valuesConst(d: Declarations, name: string): unknown {
  const init = d.consts.get(name);
  assert.ok(init, `const ${name} is declared`);
  // A long array is written one value a line, with a trailing comma JSON does not allow.
  return JSON.parse(init.replace(/\s+as const$/, "").replace(/,\s*\]$/, "]"));
}

/** The schema node at a path of property names under the first version's spec, read from the fixture's YAML. */
async function specSchema(name: string, ...keys: string[]): Promise<Record<string, unknown>> {
  const crd = parse(await readFile(path.join(fixturesDir, name, "crd.yaml"), "utf8")) as {
    spec: { versions: Array<{ schema: { openAPIV3Schema: unknown } }> };
  };
  let node = crd.spec.versions[0]!.schema.openAPIV3Schema as Record<string, unknown>;
  for (const key of ["spec", ...keys]) node = (node["properties"] as Record<string, Record<string, unknown>>)[key]!;
  return node;
}

// ---------------------------------------------------------------------------------------------------------------
// Goldens

for (const name of fixtureNames) {
  test(`fixture ${name} generates exactly its golden files and warnings`, async () => {
    const expectedDir = path.join(fixturesDir, name, "expected");
    const warningsFile = path.join(fixturesDir, name, "warnings.txt");
    const actual = await fixture(name);
    if (updateGolden) {
      // UPDATE_GOLDEN=1 rewrites the goldens; read every changed file before committing it: the goldens are the spec.
      await rm(expectedDir, { recursive: true, force: true });
      for (const [file, content] of actual.files) {
        await mkdir(path.dirname(path.join(expectedDir, file)), { recursive: true });
        await writeFile(path.join(expectedDir, file), content);
      }
      if (actual.warnings.length) await writeFile(warningsFile, actual.warnings.map((w) => `${w}\n`).join(""));
      else await rm(warningsFile, { force: true });
    }
    assertSameTree(actual.files, await readTree(expectedDir), `fixture ${name}`);
    const expectedWarnings = existsSync(warningsFile)
      ? (await readFile(warningsFile, "utf8")).split("\n").filter(Boolean)
      : [];
    assert.deepEqual(actual.warnings, expectedWarnings, `fixture ${name}: warnings (recorded in warnings.txt)`);
  });
}

test("the committed MySQL sample is exactly what samples/mysql/crd.yaml generates with --hooks --webhooks", async () => {
  // Only generator-owned files are compared: the hooks and main.ts under --hooks belong to the user once created.
  const actual = await generateFrom(repoPath("samples", "mysql", "crd.yaml"), { hooks: true, webhooks: true });
  assertSameTree(
    actual.files,
    await readTree(path.join(repoRoot, "samples", "mysql", "generated")),
    "samples/mysql/generated (run npm run generate)",
  );
  assert.deepEqual(actual.warnings, []);
});

test("generating again into the same folder changes no file", async () => {
  const dir = await mkdtemp(path.join(tmpdir(), "crdgen-golden-"));
  try {
    const options = {
      inputs: [repoPath("test", "fixtures", "schema", "deep-nesting", "crd.yaml")],
      outDir: path.join(dir, "out"),
    };
    const first = await generate(options);
    assert.ok(first.report.changed.length > 0);
    const second = await generate({ ...options, check: true });
    assert.deepEqual(second.report.changed, []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

// ---------------------------------------------------------------------------------------------------------------
// The rules, one test each, on the generator's output.

test("x-kubernetes-int-or-string is IntOrString bare, with anyOf, in items and in additionalProperties", async () => {
  const text = await typesOf("int-or-string");
  const d = declarationsOf(text);
  assert.match(text, /^import type \{ IntOrString, ResourceDescriptor \} from "@crdgen\/runtime";$/m);
  assert.equal(member(d, "PortMapSpec", "targetPort").type, "IntOrString");
  assert.equal(member(d, "PortMapSpec", "maxUnavailable").type, "IntOrString");
  assert.equal(member(d, "PortMapSpec", "ports").type, "IntOrString[]");
  assert.equal(member(d, "PortMapSpec", "limits").type, "Record<string, IntOrString>");
  // The kubebuilder anyOf is the type itself, not a documented validation.
  assert.ok(!member(d, "PortMapSpec", "maxUnavailable").tags.some((t) => t.name === "remarks"));
});

test("preserve-unknown-fields nested: properties plus an index signature, Record without properties, unknown without a type", async () => {
  const d = declarationsOf(await typesOf("preserve-unknown-fields"));
  const config = iface(d, "PipelineSpecConfig");
  assert.equal(config.index, "unknown");
  assert.deepEqual([...config.members.keys()], ["name", "retries"]);
  assert.equal(member(d, "PipelineSpec", "config").type, "PipelineSpecConfig");
  assert.equal(member(d, "PipelineSpec", "values").type, "Record<string, unknown>");
  assert.equal(member(d, "PipelineSpec", "payload").type, "unknown");
  assert.equal(member(d, "PipelineSpec", "steps").type, "Record<string, unknown>[]");
  assert.equal(member(d, "PipelineSpec", "args").type, "unknown[]");
  assert.equal(member(d, "PipelineSpec", "parameters").type, "Record<string, Record<string, unknown>>");
  assert.equal(member(d, "PipelineSpec", "extras").type, "Record<string, unknown>");
});

test("preserve-unknown-fields at the root of spec keeps the whole spec", async () => {
  const d = declarationsOf(await typesOf("preserve-unknown-spec"));
  assert.equal(member(d, "HelmValues", "spec").type, "HelmValuesSpec");
  assert.equal(d.aliases.get("HelmValuesSpec"), "Record<string, unknown>");
  assert.equal(d.aliases.get("HelmValuesStatus"), "unknown");
});

test("preserve-unknown-fields at the schema root keeps the typed envelope and every other key", async () => {
  const d = declarationsOf(await typesOf("preserve-unknown-root"));
  const blob = iface(d, "Blob");
  assert.deepEqual([...blob.members.keys()], ["apiVersion", "kind", "metadata"]);
  assert.equal(blob.members.get("metadata")!.type, "V1ObjectMeta");
  assert.equal(blob.index, "unknown");
});

test("an embedded resource has required apiVersion and kind and optional ObjectMeta metadata", async () => {
  const d = declarationsOf(await typesOf("embedded-resource"));
  const shape = (name: string, key: string) => [
    member(d, name, key).optional ? "optional" : "required",
    member(d, name, key).type,
  ];
  for (const name of ["TemplateSpecResource", "TemplateSpecConfigMap", "TemplateSpecResources"]) {
    assert.deepEqual(shape(name, "apiVersion"), ["required", "string"], name);
    assert.deepEqual(shape(name, "kind"), ["required", "string"], name);
    assert.deepEqual(shape(name, "metadata"), ["optional", "V1ObjectMeta"], name);
  }
  assert.equal(
    iface(d, "TemplateSpecResource").index,
    "unknown",
    "with preserve-unknown-fields every other key is kept",
  );
  assert.equal(iface(d, "TemplateSpecConfigMap").index, undefined, "without it the object stays closed");
  assert.equal(member(d, "TemplateSpecConfigMap", "data").optional, false);
  assert.ok(!d.interfaces.has("TemplateSpecConfigMapMetadata"), "the embedded metadata schema gets no type of its own");
});

test("nullable adds | null and stays independent of optional", async () => {
  const d = declarationsOf(await typesOf("nullable"));
  const spec = (key: string) => member(d, "ReservationSpec", key);
  assert.deepEqual([spec("owner").optional, spec("owner").type], [false, "string"]);
  assert.deepEqual([spec("note").optional, spec("note").type], [true, "string"]);
  assert.deepEqual([spec("until").optional, spec("until").type], [false, "string | null"]);
  assert.deepEqual([spec("seats").optional, spec("seats").type], [true, "number | null"]);
  assert.deepEqual([spec("room").optional, spec("room").type], [false, "ReservationSpecRoom | null"]);
  assert.equal(spec("guests").type, "Array<string | null>");
  assert.equal(spec("tags").type, "Record<string, string | null>");
  assert.equal(spec("history").type, "Array<ReservationSpecHistory | null> | null");
});

test("an enum of strings is a literal union plus an as-const array of its values", async () => {
  const d = declarationsOf(await typesOf("enum-strings"));
  assert.equal(d.aliases.get("RolloutSpecStrategy"), `"RollingUpdate" | "Recreate" | "BlueGreen"`);
  assert.equal(member(d, "RolloutSpec", "strategy").type, "RolloutSpecStrategy");
  assert.deepEqual(valuesConst(d, "RolloutSpecStrategyValues"), (await specSchema("enum-strings", "strategy"))["enum"]);
  assert.match(d.consts.get("RolloutSpecStrategyValues")!, / as const$/);
});

test("enum values may be numbers, booleans, null and mixed JSON values", async () => {
  const d = declarationsOf(await typesOf("enum-mixed"));
  assert.equal(d.aliases.get("VolumeSpecSizeGi"), "1 | 10 | 100 | 1000");
  assert.equal(d.aliases.get("VolumeSpecRatio"), "-1 | 0.5 | 1.25");
  assert.equal(d.aliases.get("VolumeSpecReplicas"), "1 | 3 | 5 | null");
  assert.equal(member(d, "VolumeSpec", "replicas").type, "VolumeSpecReplicas", "null is already in the union");
  assert.equal(d.aliases.get("VolumeSpecMode"), `"auto" | 0 | false`);
  for (const [key, type] of [
    ["sizeGi", "VolumeSpecSizeGi"],
    ["ratio", "VolumeSpecRatio"],
    ["replicas", "VolumeSpecReplicas"],
    ["mode", "VolumeSpecMode"],
  ] as const) {
    assert.deepEqual(valuesConst(d, `${type}Values`), (await specSchema("enum-mixed", key))["enum"], key);
  }
});

test("enum strings that are not identifiers stay exact literals and round-trip through the values array", async () => {
  const d = declarationsOf(await typesOf("enum-odd-strings"));
  assert.equal(
    d.aliases.get("BucketNotificationSpecEvent"),
    `"s3:ObjectCreated:*" | "s3:ObjectRemoved:Delete" | "s3:ObjectCreated:Put"`,
  );
  assert.equal(d.aliases.get("BucketNotificationSpecOperator"), `"=" | "!=" | "=~" | "!~"`);
  assert.equal(d.aliases.get("BucketNotificationSpecPostgresVersion"), `"9.6" | "10" | "11"`);
  for (const [key, type] of [
    ["event", "Event"],
    ["operator", "Operator"],
    ["postgresVersion", "PostgresVersion"],
    ["suffix", "Suffix"],
  ] as const) {
    assert.deepEqual(
      valuesConst(d, `BucketNotificationSpec${type}Values`),
      (await specSchema("enum-odd-strings", key))["enum"],
      key,
    );
  }
});

test("an enum in items or in additionalProperties names the element type", async () => {
  const d = declarationsOf(await typesOf("enum-in-items"));
  // Items are named in the singular: one protocol of the list.
  assert.equal(member(d, "FirewallRuleSpec", "protocols").type, "FirewallRuleSpecProtocol[]");
  assert.equal(d.aliases.get("FirewallRuleSpecProtocol"), `"TCP" | "UDP" | "SCTP"`);
  assert.equal(member(d, "FirewallRuleSpec", "actions").type, "Record<string, FirewallRuleSpecActionsValue>");
  assert.equal(d.aliases.get("FirewallRuleSpecActionsValue"), `"Allow" | "Deny"`);
});

test("additionalProperties is a record of its value type, and true is a record of unknown", async () => {
  const d = declarationsOf(await typesOf("additional-properties"));
  assert.equal(member(d, "SettingsSpec", "labels").type, "Record<string, string>");
  assert.equal(member(d, "SettingsSpec", "weights").type, "Record<string, number>");
  assert.equal(member(d, "SettingsSpec", "backends").type, "Record<string, SettingsSpecBackendsValue>");
  assert.equal(iface(d, "SettingsSpecBackendsValue").index, undefined);
  assert.equal(member(d, "SettingsSpec", "lists").type, "Record<string, string[]>");
  assert.equal(member(d, "SettingsSpec", "anything").type, "Record<string, unknown>");
});

test("objects are closed: no index signature unless the schema preserves unknown fields", async () => {
  const d = declarationsOf(await typesOf("closed-and-empty-object"));
  assert.equal(iface(d, "GadgetSpec").index, undefined);
  assert.equal(iface(d, "Gadget").index, undefined);
  // A bare `type: object` is pruned to {} by the API server.
  assert.equal(member(d, "GadgetSpec", "marker").type, "Record<string, never>");
  for (const name of fixtureNames) {
    const { files } = await fixture(name);
    const texts = [...files].filter(([f]) => f.endsWith(".types.ts")).map(([, text]) => text);
    const open = texts.flatMap((text) =>
      [...declarationsOf(text).interfaces].filter(([, i]) => i.index !== undefined).map(([n]) => n),
    );
    const expectedOpen: Record<string, string[]> = {
      "preserve-unknown-fields": ["PipelineSpecConfig"],
      "preserve-unknown-root": ["Blob"],
      // TemplateSpecResources has the same body: an alias of TemplateSpecResource.
      "embedded-resource": ["TemplateSpecResource"],
    };
    assert.deepEqual(open, expectedOpen[name] ?? [], `${name}: only preserve-unknown-fields objects are open`);
  }
});

test("oneOf/anyOf/not made only of required lists keep every property and are documented as constraints", async () => {
  const d = declarationsOf(await typesOf("required-only-combinators"));
  assert.deepEqual(
    [...iface(d, "PostgresqlSpecStandby").members.keys()],
    ["s3_wal_path", "gs_wal_path", "standby_host", "standby_port"],
  );
  assert.deepEqual([...iface(d, "PostgresqlSpecClone").members.keys()], ["cluster", "uid", "timestamp"]);
  assert.ok([...iface(d, "PostgresqlSpecStandby").members.values()].every((m) => m.optional));
  // A named type's rules are on its declaration, once (not again on the property that holds it).
  const remarksOf = (name: string) =>
    iface(d, name)
      .tags.filter((t) => t.name === "remarks")
      .map((t) => t.text);
  assert.deepEqual(member(d, "PostgresqlSpec", "clone").tags, []);
  const remarks = remarksOf("PostgresqlSpecClone");
  assert.deepEqual(remarks, [
    "anyOf: at least one of these field sets must be set: [cluster] | [uid]",
    "not: these fields must not all be set: [uid, timestamp]",
  ]);
  assert.deepEqual(remarksOf("PostgresqlSpecStandby"), [
    "oneOf: exactly one of these field sets must be set: [s3_wal_path] | [gs_wal_path] | [standby_host]",
  ]);
});

test("oneOf/anyOf of typed members is a union; a value-only anyOf under a typed node is documented, not a type", async () => {
  const d = declarationsOf(await typesOf("typed-union"));
  assert.equal(member(d, "SelectorSpec", "target").type, "string | SelectorSpecTargetOption2");
  assert.deepEqual([...iface(d, "SelectorSpecTargetOption2").members.keys()], ["name", "namespace"]);
  assert.equal(member(d, "SelectorSpec", "limit").type, "number | boolean");
  const address = member(d, "SelectorSpec", "address");
  assert.equal(address.type, "string");
  assert.deepEqual(
    address.tags.map((t) => `@${t.name} ${t.text}`),
    [`@remarks anyOf: at least one of these must hold: {"format":"ipv4"} | {"format":"ipv6"}`],
  );
  assert.deepEqual((await fixture("typed-union")).warnings, []);
});

test("JSDoc carries default, bounds, pattern, format, item counts, list and map types and CEL rules with messages", async () => {
  const d = declarationsOf(await typesOf("value-validations"));
  const tags = (key: string) => member(d, "CacheSpec", key).tags.map((t) => `@${t.name}${t.text ? ` ${t.text}` : ""}`);
  assert.deepEqual(tags("minReplicas"), ["@default 2", "@minimum 1", "@format int32"]);
  assert.deepEqual(tags("maxReplicas"), ["@maximum 100", "@multipleOf 2", "@exclusiveMaximum"]);
  assert.deepEqual(tags("tier"), [
    `@default "standard"`,
    "@minLength 1",
    "@maxLength 10",
    "@pattern ^[a-z]+(-[a-z]+)*$",
  ]);
  assert.deepEqual(tags("zones"), [`@default ["a","b"]`, "@minItems 1", "@maxItems 3", "@listType set"]);
  assert.deepEqual(tags("endpoints"), ["@maxItems 16", "@listType map", "@listMapKeys host, port"]);
  assert.deepEqual(tags("options"), [`@default {"evict":"lru"}`, "@maxProperties 8", "@mapType atomic"]);
  assert.deepEqual(tags("tolerations"), [
    "@listType atomic",
    "@itemValidation self.startsWith('node.') || self.startsWith('zone.') — a toleration names a node or zone taint",
  ]);
  assert.deepEqual(tags("nothing"), ["@default null"]);
  // The spec's rules are on CacheSpec's declaration, once: not again on the property that holds it.
  assert.deepEqual(member(d, "Cache", "spec").tags, []);
  assert.deepEqual(
    iface(d, "CacheSpec").tags.map((t) => t.text),
    [
      "self.minReplicas <= self.maxReplicas — minReplicas must not exceed maxReplicas",
      "!has(self.tier) || self.tier != 'gold' || self.minReplicas >= 3 — (messageExpression) 'gold needs 3 replicas, got ' + string(self.minReplicas) (reason FieldValueInvalid, fieldPath .minReplicas)",
    ],
  );
  assert.deepEqual(
    iface(d, "Cache").tags.map((t) => t.name),
    ["validation"],
    "a CEL rule at the schema root is documented on the kind",
  );
});

test("@default comes from the schema's default, never from the description text", async () => {
  const d = declarationsOf(await typesOf("value-validations"));
  const defaults = member(d, "CacheSpec", "minReplicas").tags.filter((t) => t.name === "default");
  assert.deepEqual(
    defaults.map((t) => t.text),
    ["2"],
  );
  const safety = declarationsOf(await typesOf("description-safety"));
  assert.deepEqual(member(safety, "Note", "spec").tags, [], "'@default 42' in a description is text");
});

test("a description cannot end its comment early or add code", async () => {
  const text = await typesOf("description-safety");
  const tokens: string[] = [];
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, text);
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan())
    tokens.push(scanner.getTokenText());
  for (const injected of ["injected", "process", "exit"])
    assert.ok(!tokens.includes(injected), `${injected} appears only inside comments`);
  const d = declarationsOf(text);
  assert.deepEqual([...d.interfaces.keys()], ["Note", "NoteSpec", "NoteList"]);
  assert.deepEqual([...d.aliases.keys()], ["NoteSpecTemplate"]);
  assert.deepEqual([...d.consts.keys()], ["noteResourceFields", "noteResource", "NoteSpecTemplateValues"]);
  // Backticks, ${} and */ in enum values are JSON string literals: the exact values, and nothing runs.
  assert.deepEqual(
    valuesConst(d, "NoteSpecTemplateValues"),
    (await specSchema("description-safety", "template"))["enum"],
  );
  assert.equal(d.aliases.get("NoteSpecTemplate"), '"`${process.exit(1)}`" | "*/ process.exit(1) /*" | "${injected}"');
  assert.match(
    member(d, "NoteSpec", "template").tags.length ? "" : text,
    /A template literal cannot open either: `\$\{process\.exit\(1\)\}` and ` backticks `/,
  );
  assert.deepEqual(
    ts.transpileModule(text, { reportDiagnostics: true }).diagnostics ?? [],
    [],
    "the file parses cleanly",
  );
});

test("a description line that looks like a JSDoc tag adds no tag", async () => {
  const d = declarationsOf(await typesOf("description-safety"));
  assert.deepEqual(iface(d, "NoteSpec").tags, []);
  assert.deepEqual(member(d, "Note", "spec").tags, []);
  assert.deepEqual(
    member(d, "NoteSpec", "windows").tags.map((t) => t.name),
    ["default"],
  );
  assert.ok(!member(d, "NoteSpec", "empty").tags.length);
  assert.doesNotMatch(
    await typesOf("description-safety"),
    /\/\*\*\n\s*\*\n\s*\*\//,
    "a blank description writes no empty comment",
  );
});

test("keys that collide once PascalCased get distinct readable type names, and the camelCase key keeps the plain name", async () => {
  const d = declarationsOf(await typesOf("name-collisions"));
  assert.equal(member(d, "MirrorSpec", "fooBar").type, "MirrorSpecFooBar");
  assert.equal(member(d, "MirrorSpec", "foo-bar").type, "MirrorSpecFoo_Bar");
  assert.equal(member(d, "MirrorSpec", "mirrorPercent").type, "MirrorSpecMirrorPercent");
  assert.equal(member(d, "MirrorSpec", "mirror_percent").type, "MirrorSpecMirror_Percent");
  assert.equal(member(d, "MirrorSpecA", "bC").type, "MirrorSpecABC");
  assert.equal(member(d, "MirrorSpecAB", "c").type, "MirrorSpecAB_C");
  const names = [...d.interfaces.keys(), ...d.aliases.keys()];
  assert.equal(new Set(names).size, names.length);
});

test("root properties named list, hooks or client do not take the generated <Kind>List, <Kind>Hooks or <Kind>Client", async () => {
  const d = declarationsOf(await typesOf("root-property-names"));
  assert.equal(member(d, "Playbook", "list").type, "Playbook_List");
  assert.equal(member(d, "Playbook", "hooks").type, "Playbook_Hooks");
  assert.equal(member(d, "Playbook", "client").type, "Playbook_Client");
  assert.deepEqual([...iface(d, "PlaybookList").members.keys()], ["apiVersion", "kind", "metadata", "items"]);
});

test("wire keys stay exactly as in the schema, quoted when they are not identifiers", async () => {
  const text = await typesOf("keys-and-reserved-words");
  const d = declarationsOf(text);
  const keys = [...iface(d, "KeySetSpec").members.keys()];
  assert.deepEqual(keys, Object.keys((await specSchema("keys-and-reserved-words"))["properties"] as object));
  for (const quoted of ["x-y", "a.b", "with space", "9lives", "-XX:MaxRAMPercentage"])
    assert.ok(text.includes(`  ${JSON.stringify(quoted)}`), quoted);
  for (const bare of ["class", "default", "constructor", "function", "$special", "_private"])
    assert.ok(text.includes(`\n  ${bare}`), bare);
  assert.equal(member(d, "KeySetSpecA_B", "c/d").type, "string");
  assert.equal(member(d, "KeySetSpec", "class").optional, false);
});

test("a kind named like a TypeScript global keeps its name as the resource type", async () => {
  const { files } = await fixture("kind-global-name");
  const d = declarationsOf(await typesOf("kind-global-name"));
  assert.ok(d.interfaces.has("Function"));
  assert.match(
    files.get("kind-global-name.fixtures.crdgen.dev/v1/function.client.ts")!,
    /type Function, type FunctionList/,
  );
});

test("every nested object in arrays of maps of objects gets a type named from its path", async () => {
  const d = declarationsOf(await typesOf("deep-nesting"));
  assert.equal(member(d, "TopologySpec", "regions").type, "Record<string, TopologySpecRegionValue>[]");
  assert.equal(member(d, "TopologySpecRegionValue", "racks").type, "TopologySpecRegionValueRack[]");
  assert.equal(
    member(d, "TopologySpecRegionValueRack", "hosts").type,
    "Record<string, TopologySpecRegionValueRackHostsValue[]>",
  );
  assert.equal(member(d, "TopologySpec", "matrix").type, "Array<TopologySpecMatrix[]>");
  assert.equal(member(d, "TopologySpec", "grid").type, "Array<Array<number | null>>");
});

test("adding fields elsewhere, even the camelCase twin of a dashed or snake_case key, renames no existing type", async () => {
  type Crd = {
    spec: {
      versions: Array<{
        schema: { openAPIV3Schema: { properties: Record<string, { properties: Record<string, unknown> }> } };
      }>;
    };
  };
  const load = async () => parse(await readFile(path.join(fixturesDir, "name-collisions", "crd.yaml"), "utf8")) as Crd;
  const object = (properties: Record<string, unknown>) => ({ type: "object", properties });
  // Before: the fixture without the camelCase twins of "foo-bar" and "mirror_percent".
  const before = await load();
  const beforeSpec = before.spec.versions[0]!.schema.openAPIV3Schema.properties["spec"]!;
  delete beforeSpec.properties["fooBar"];
  delete beforeSpec.properties["mirrorPercent"];
  // After: the whole fixture, plus new keys first in several objects, so anything order-dependent would shift.
  const after = await load();
  const root = after.spec.versions[0]!.schema.openAPIV3Schema.properties;
  root["spec"]!.properties = {
    added: object({ fooBar: object({ z: { type: "string" } }), "x-y": object({ w: { type: "integer" } }) }),
    "a-b": object({ v: { type: "string" } }),
    level: { type: "string", enum: ["low", "high"] },
    ...root["spec"]!.properties,
  };
  const a = root["spec"]!.properties["a"] as { properties: Record<string, unknown> };
  a.properties = { zz: object({ q: { type: "string" } }), ...a.properties };
  root["extra"] = object({ value: { type: "string" } });

  const dir = await mkdtemp(path.join(tmpdir(), "crdgen-golden-"));
  try {
    const typesFrom = async (crd: Crd, name: string) => {
      await writeFile(path.join(dir, name), stringify(crd));
      return declarationsOf(
        (await generateFrom(path.join(dir, name))).files.get("name-collisions.fixtures.crdgen.dev/v1/mirror.types.ts")!,
      );
    };
    const old = await typesFrom(before, "before.yaml");
    const grown = await typesFrom(after, "after.yaml");
    assert.equal(member(old, "MirrorSpec", "foo-bar").type, "MirrorSpecFoo_Bar");
    for (const [name, declared] of old.interfaces) {
      const now = grown.interfaces.get(name);
      assert.ok(now, `${name} still exists`);
      for (const [key, m] of declared.members)
        assert.equal(now.members.get(key)?.type, m.type, `${name}.${key} keeps its type`);
    }
    assert.equal(member(grown, "MirrorSpec", "fooBar").type, "MirrorSpecFooBar");
    assert.equal(member(grown, "MirrorSpecAdded", "fooBar").type, "MirrorSpecAddedFooBar");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("a node the generator does not understand is unknown, with a warning naming the file and JSON pointer", async () => {
  const { warnings } = await fixture("untyped-node");
  const d = declarationsOf(await typesOf("untyped-node"));
  assert.equal(member(d, "OdditySpec", "mystery").type, "unknown");
  assert.equal(member(d, "OdditySpec", "known").type, "string");
  assert.equal(member(d, "OdditySpec", "listWithoutItems").type, "unknown[]");
  const file = "test/fixtures/schema/untyped-node/crd.yaml";
  const at = "(document 1) at /spec/versions/0/schema/openAPIV3Schema/properties/spec/properties";
  // Each at the line and column of its key; an items schema that is missing, at its array's key.
  assert.deepEqual(
    warnings.map((w) => w.slice(0, w.indexOf(": "))),
    [`${file}:24:17 ${at}/mystery`, `${file}:29:17 ${at}/listWithoutItems/items`],
  );
  assert.ok(warnings.every((w) => w.endsWith("typed as unknown")));
});

test("every fixture except untyped-node generates without warnings", async () => {
  for (const name of fixtureNames.filter((n) => n !== "untyped-node"))
    assert.deepEqual((await fixture(name)).warnings, [], name);
});

test("a repeated subtree is declared once: its copies and every named type inside them are aliases, each path keeps its name", async () => {
  const d = declarationsOf(await typesOf("repeated-subtrees"));
  // The second occurrence of the pod (under steps[].pod) has the same body: an alias, and so is each type inside it.
  assert.equal(d.aliases.get("PipelineSpecStepPod"), "PipelineSpecBuild");
  assert.equal(d.aliases.get("PipelineSpecStepPodContainer"), "PipelineSpecBuildContainer");
  assert.equal(d.aliases.get("PipelineSpecStepPodContainerPort"), "PipelineSpecBuildContainerPort");
  assert.equal(d.aliases.get("PipelineSpecStepPodContainerPullPolicy"), "PipelineSpecBuildContainerPullPolicy");
  assert.equal(
    d.consts.get("PipelineSpecStepPodContainerPullPolicyValues"),
    "PipelineSpecBuildContainerPullPolicyValues",
  );
  // Its own description differs from the first occurrence's: it stays on the alias.
  const podAlias = d.source.statements.find(
    (st) => ts.isTypeAliasDeclaration(st) && st.name.text === "PipelineSpecStepPod",
  )!;
  assert.deepEqual(
    ts.getJSDocCommentsAndTags(podAlias).map((c) => ts.getTextOfJSDocComment(c.comment)),
    ["The pod that runs this step."],
  );
  // A nested description differs under cleanup: declared anew, though the unchanged ports inside it are still shared.
  assert.deepEqual([...iface(d, "PipelineSpecCleanup").members.keys()], ["containers", "restartPolicy"]);
  assert.ok(d.interfaces.has("PipelineSpecCleanup") && d.interfaces.has("PipelineSpecCleanupContainer"));
  assert.equal(d.aliases.get("PipelineSpecCleanupContainerPort"), "PipelineSpecBuildContainerPort");
  assert.equal(
    member(d, "PipelineSpecStepPod", "containers").type,
    "PipelineSpecBuildContainer[]",
    "an alias resolves to the shared declaration",
  );
});

test("each served version gets its own module, a deprecated one says so, and an unserved one is not generated", async () => {
  const { files } = await fixture("multi-version");
  const dirs = [...new Set([...files.keys()].map((f) => path.posix.dirname(f)))];
  // The group's folder holds the kind module (backup.ts), the version-free module of the controller's version.
  assert.deepEqual(dirs, [
    ".",
    "multi-version.fixtures.crdgen.dev",
    "multi-version.fixtures.crdgen.dev/v1",
    "multi-version.fixtures.crdgen.dev/v1alpha1",
  ]);
  const alpha = declarationsOf(await typesOf("multi-version", "v1alpha1"));
  const tags = ts.getJSDocTags(
    alpha.source.statements.find((s) => ts.isInterfaceDeclaration(s) && s.name.text === "Backup")!,
  );
  assert.deepEqual(
    tags.map((t) => [t.tagName.text, joinedComment(t)]),
    [
      [
        "deprecated",
        "multi-version.fixtures.crdgen.dev/v1alpha1 Backup is deprecated; use multi-version.fixtures.crdgen.dev/v1 Backup",
      ],
    ],
  );
  assert.equal(member(alpha, "Backup", "apiVersion").type, `"multi-version.fixtures.crdgen.dev/v1alpha1"`);
  assert.equal(
    member(declarationsOf(await typesOf("multi-version", "v1")), "Backup", "apiVersion").type,
    `"multi-version.fixtures.crdgen.dev/v1"`,
  );
  assert.ok(files.has("multi-version.fixtures.crdgen.dev/v1/backup.controller.ts"));
  assert.ok(
    !files.has("multi-version.fixtures.crdgen.dev/v1alpha1/backup.controller.ts"),
    "only the storage version has a controller",
  );
  assert.ok(![...files.values()].some((c) => c.includes("v1beta1")));
});

test("subresource verbs appear in a client only when the CRD enables them", async () => {
  const client = async (name: string, file: string) => (await fixture(name)).files.get(file)!;
  const scale = await client("scale-subresource", "scale-subresource.fixtures.crdgen.dev/v1/workerpool.client.ts");
  assert.match(
    scale,
    /export type WorkerPoolVerbs = client.ObjectVerbs<WorkerPool, WorkerPoolList> &\n {2}client.StatusVerbs<WorkerPool> &\n {2}client.ScaleVerbs;/,
  );
  const cluster = await client("cluster-scoped", "cluster-scoped.fixtures.crdgen.dev/v1/storagepool.client.ts");
  assert.match(cluster, /export type StoragePoolVerbs = client.ObjectVerbs<StoragePool, StoragePoolList>;/);
  assert.match(cluster, /export type StoragePoolClient = StoragePoolVerbs & /);
});

test("kinds named like the runtime's exports get the runtime and its subpaths as namespace imports, aliased only when a kind is called rt", async () => {
  const { files } = await fixture("kinds-sharing-a-version");
  const file = (name: string) => files.get(`kinds.fixtures.crdgen.dev/v1/${name}`)!;
  for (const stem of ["controller", "lister", "object", "informer", "cluster", "resource"]) {
    assert.match(
      file(`${stem}.client.ts`),
      /^import \* as client from "@crdgen\/runtime\/client";$/m,
      `${stem}.client.ts`,
    );
    assert.match(
      file(`${stem}.lister.ts`),
      /^import \* as cache from "@crdgen\/runtime\/cache";$/m,
      `${stem}.lister.ts`,
    );
    assert.match(
      file(`${stem}.informer.ts`),
      /^import type \* as rt from "@crdgen\/runtime";\nimport type \* as cache from "@crdgen\/runtime\/cache";$/m,
      `${stem}.informer.ts`,
    );
  }
  assert.match(
    file("controller.controller.ts"),
    /export function newControllerController\(\n {2}kube: rt\.KubeClient,\n {2}hooks: ControllerHooks,\n {2}options: rt\.ControllerOptions = \{\},\n\): rt\.Controller<Controller>/,
  );
  assert.match(file("cluster.lister.ts"), /export type ClusterLister = cache\.ClusterLister<Cluster>;/);
  assert.match(file("rt.informer.ts"), /^import type \* as rt_ from "@crdgen\/runtime";$/m);
  const intOrString = declarationsOf(file("intorstring.types.ts"));
  assert.match(
    file("intorstring.types.ts"),
    /^import type \{ IntOrString as IntOrString_, ResourceDescriptor \} from "@crdgen\/runtime";$/m,
  );
  // A kind called ResourceDescriptor types its own descriptor with the runtime's, aliased.
  assert.match(
    file("resourcedescriptor.types.ts"),
    /^import type \{ ResourceDescriptor as ResourceDescriptor_ \} from "@crdgen\/runtime";$/m,
  );
  assert.match(
    file("resourcedescriptor.types.ts"),
    /^export const resourceDescriptorResource: typeof resourceDescriptorResourceFields &\s+ResourceDescriptor_<ResourceDescriptor> =/m,
  );
  assert.equal(member(intOrString, "IntOrStringSpec", "port").type, "IntOrString_");
  assert.match(
    file("v1objectmeta.types.ts"),
    /^import type \{ V1ListMeta, V1ObjectMeta as V1ObjectMeta_ \} from "@kubernetes\/client-node";$/m,
  );
  assert.equal(member(declarationsOf(file("v1objectmeta.types.ts")), "V1ObjectMeta", "metadata").type, "V1ObjectMeta_");
});

test("kinds of one group/version never export the same name twice through its index", async () => {
  const { files } = await fixture("kinds-sharing-a-version");
  const dir = "kinds.fixtures.crdgen.dev/v1";
  const gadget = declarationsOf(files.get(`${dir}/gadget.types.ts`)!);
  // GadgetClassSpec is the spec of kind GadgetClass, GadgetModeValues a kind: Gadget's nested types step aside.
  assert.equal(member(gadget, "Gadget", "classSpec").type, "Gadget_ClassSpec");
  assert.equal(member(gadget, "Gadget", "mode").type, "Gadget_Mode");
  assert.ok(gadget.consts.has("Gadget_ModeValues"));
  assert.equal(
    member(declarationsOf(files.get(`${dir}/gadgetclass.types.ts`)!), "GadgetClass", "spec").type,
    "GadgetClassSpec",
  );
  // Names derived from two kinds (Widget's client type WidgetClient, and the kind WidgetClient): the kind's type wins.
  assert.match(files.get(`${dir}/index.ts`)!, /^export \{ WidgetClient \} from "\.\/widgetclient\.types\.js";$/m);
  // Every name the index re-exports is declared once, or resolved by one explicit export (tsc checks this file too).
  const exportedBy = new Map<string, string[]>();
  for (const [name, text] of files) {
    if (!name.startsWith(`${dir}/`) || name.endsWith("index.ts")) continue;
    const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
    for (const s of source.statements) {
      const isExported =
        ts.canHaveModifiers(s) && ts.getModifiers(s)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
      if (!isExported) continue;
      const names = ts.isVariableStatement(s)
        ? s.declarationList.declarations.map((d) => d.name.getText(source))
        : [(s as ts.DeclarationStatement).name!.getText(source)];
      for (const n of names) exportedBy.set(n, [...(exportedBy.get(n) ?? []), name]);
    }
  }
  const twice = [...exportedBy].filter(([, where]) => where.length > 1).map(([n]) => n);
  assert.deepEqual(twice, ["WidgetClient"]);
});

test("--versions: served (default) skips unserved versions, storage keeps only the storage version, all keeps every one; storage is marked", async () => {
  const input = repoPath("test", "fixtures", "schema", "multi-version", "crd.yaml");
  const dir = await mkdtemp(path.join(tmpdir(), "crdgen-golden-"));
  try {
    const versionsOf = async (versions: "served" | "storage" | "all") => {
      const outDir = path.join(dir, versions);
      await generate({ inputs: [input], outDir, versions });
      const files = await readTree(outDir);
      return {
        files,
        dirs: [...new Set([...files.keys()].map((f) => path.posix.dirname(f)))]
          .filter((d) => d.includes("/"))
          .map((d) => d.split("/")[1]),
      };
    };
    assert.deepEqual((await versionsOf("served")).dirs, ["v1", "v1alpha1"]);
    assert.deepEqual((await versionsOf("storage")).dirs, ["v1"]);
    const all = await versionsOf("all");
    assert.deepEqual(all.dirs, ["v1", "v1alpha1", "v1beta1"]);
    const resourceOf = (version: string) =>
      declarationsOf(all.files.get(`multi-version.fixtures.crdgen.dev/${version}/backup.types.ts`)!).consts.get(
        "backupResourceFields",
      )!;
    for (const version of ["v1", "v1alpha1", "v1beta1"]) {
      assert.match(
        resourceOf(version),
        new RegExp(`storage: ${version === "v1"},\\n.*\\n?\\s*storageVersion: "v1",`),
        version,
      );
    }
    assert.match(
      resourceOf("v1alpha1"),
      /deprecationWarning: "multi-version\.fixtures\.crdgen\.dev\/v1alpha1 Backup is deprecated; use /,
    );
    assert.doesNotMatch(resourceOf("v1"), /deprecationWarning/);
    // Only the storage version has a controller, whichever versions are generated.
    assert.deepEqual(
      [...all.files.keys()].filter((f) => f.endsWith(".controller.ts")),
      ["multi-version.fixtures.crdgen.dev/v1/backup.controller.ts"],
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
