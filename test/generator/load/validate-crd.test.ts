// CRD validation before generation: every name that reaches a file path, string literal or comment is checked as the
// API server checks it (with its messages), and so are the storage version, version names, schemas and scale paths.
// Ports of cases from apiextensions-apiserver's pkg/apis/apiextensions/validation/validation_test.go
// (TestValidateCustomResourceDefinition), written anew as YAML fixtures.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { stringify } from "yaml";
import { generate } from "../../../generator/generate.js";
import { InputError } from "../../../generator/input-error.js";

const dir = mkdtempSync(path.join(tmpdir(), "crdgen-validate-crd-"));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Schema {
  type: string;
  properties?: Record<string, Schema>;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
}
interface Version {
  name: string;
  served: boolean;
  storage: boolean;
  subresources: { status: unknown; scale: Record<string, unknown> };
  schema?: { openAPIV3Schema: Schema };
}
/** The CRD as the tests edit it (names optional where a test deletes one). */
interface Crd {
  apiVersion: string;
  kind: string;
  metadata: { name?: string };
  spec: {
    group: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames: string[];
      categories: string[];
    };
    scope: string;
    versions: Version[];
  };
}

/** A valid CRD, which each test breaks in one place. */
function validCrd(): Crd {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.hostile.example.com" },
    spec: {
      group: "hostile.example.com",
      names: {
        kind: "Widget",
        listKind: "WidgetList",
        plural: "widgets",
        singular: "widget",
        shortNames: ["wd"],
        categories: ["all"],
      },
      scope: "Namespaced",
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          subresources: {
            status: {},
            scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" },
          },
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                spec: { type: "object", properties: { replicas: { type: "integer" } } },
                status: { type: "object", properties: { replicas: { type: "integer" } } },
              },
            },
          },
        },
      ],
    },
  };
}

let counter = 0;
/** Writes the CRD (after `edit`) to a file and generates from it; returns the error and whether --out was created. */
async function generateFrom(edit: (crd: Crd) => void): Promise<{ error: unknown; file: string; outDir: string }> {
  const crd = validCrd();
  edit(crd);
  const file = path.join(dir, `crd-${++counter}.yaml`);
  // A harmless first document, so the CRD is document 1 and the error must say which document.
  writeFileSync(file, `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n---\n${stringify(crd)}`);
  const outDir = path.join(dir, `out-${counter}`);
  let error: unknown;
  try {
    await generate({ inputs: [file], outDir, hooksDir: path.join(dir, `hooks-${counter}`) });
  } catch (e) {
    error = e;
  }
  return { error, file, outDir };
}

/**
 * Generation fails with an InputError naming the file, the line and column of the offending key, the second document
 * (documentIndex 1, "document 2" in the message: counted from 1) and the pointer, with the API server's message.
 */
async function assertRejected(edit: (crd: Crd) => void, schemaPath: string, message: string): Promise<void> {
  const { error, file, outDir } = await generateFrom(edit);
  assert.ok(error instanceof InputError, `rejected with an InputError, got ${String(error)}`);
  const { line, column, ...location } = error.location;
  assert.deepEqual(location, { file, documentIndex: 1, schemaPath });
  assert.equal(error.problem, message);
  assert.equal(error.message, `${file}:${line}:${column} (document 2) at ${schemaPath}: ${message}`);
  assertAtKey(file, line, column, schemaPath);
  assert.ok(!existsSync(outDir) && !existsSync(path.join(dir, `hooks-${counter}`)), "nothing was written");
}

/**
 * The position is that of a key of the pointer: its last one, or for a missing field, the nearest one that exists; or
 * that of a sequence item the pointer names, after its "- ".
 */
function assertAtKey(file: string, line: number | undefined, column: number | undefined, schemaPath: string): void {
  assert.ok(line !== undefined && column !== undefined, `${schemaPath} has a line and column`);
  const lineText = readFileSync(file, "utf8").split("\n")[line - 1]!;
  const segments = schemaPath.split("/");
  // A sequence item (shortNames[1], versions[1]) is where its "- " ends.
  if (lineText.slice(0, column - 1).endsWith("- ") && segments.some((s) => /^\d+$/.test(s))) return;
  const key = /^"?([^":]+)"?:/.exec(lineText.slice(column - 1))?.[1];
  assert.ok(key !== undefined, `line ${line}, column ${column} is a key: ${JSON.stringify(lineText)}`);
  assert.ok(segments.includes(key), `the key at ${line}:${column} (${key}) is part of ${schemaPath}`);
}

test("the valid CRD these tests break generates", async () => {
  const { error, outDir } = await generateFrom(() => undefined);
  assert.equal(error, undefined);
  assert.ok(existsSync(path.join(outDir, "hostile.example.com/v1/widget.types.ts")));
});

const dns1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, " +
  "and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is " +
  "'[a-z]([-a-z0-9]*[a-z0-9])?')";
const dns1123 =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start " +
  "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is " +
  "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

test("the DNS messages are the API server's, character for character", async () => {
  await assertRejected(
    (crd) => (crd.spec.names.plural = "Widgets"),
    "/spec/names/plural",
    `spec.names.plural: Invalid value: "Widgets": ${dns1035}`,
  );
  await assertRejected(
    (crd) => (crd.spec.group = "Hostile.example.com"),
    "/spec/group",
    `spec.group: Invalid value: "Hostile.example.com": ${dns1123}`,
  );
});

/**
 * Code that, if a generated module ever ran it, would leave a mark: a global and a file. Each field below gets it
 * inside a string literal's quotes, as in `plural: "<payload>"`.
 */
const marker = path.join(dir, "payload-ran");
const writeMarker = `process.getBuiltinModule("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran")`;
const payload = `x" + String((() => { globalThis.crdgenPayloadRan = true; ${writeMarker}; })()) + "`;

/** The payload is longer than a label may be: the API server joins both of its problems with ",". */
const longLabel = `must be no more than 63 characters,${dns1035}`;

const hostileFields: Array<{ field: string; schemaPath: string; edit: (crd: Crd) => void; detail: string }> = [
  { field: "spec.group", schemaPath: "/spec/group", edit: (c) => (c.spec.group = payload), detail: dns1123 },
  {
    field: "spec.names.plural",
    schemaPath: "/spec/names/plural",
    edit: (c) => (c.spec.names.plural = payload),
    detail: longLabel,
  },
  {
    field: "spec.names.singular",
    schemaPath: "/spec/names/singular",
    edit: (c) => (c.spec.names.singular = payload),
    detail: longLabel,
  },
  {
    field: "spec.names.kind",
    schemaPath: "/spec/names/kind",
    edit: (c) => (c.spec.names.kind = payload),
    detail: `may have mixed case, but should otherwise match: ${longLabel}`,
  },
  {
    field: "spec.names.listKind",
    schemaPath: "/spec/names/listKind",
    edit: (c) => (c.spec.names.listKind = payload),
    detail: `may have mixed case, but should otherwise match: ${longLabel}`,
  },
  {
    field: "spec.names.shortNames[1]",
    schemaPath: "/spec/names/shortNames/1",
    edit: (c) => c.spec.names.shortNames.push(payload),
    detail: longLabel,
  },
  {
    field: "spec.names.categories[1]",
    schemaPath: "/spec/names/categories/1",
    edit: (c) => c.spec.names.categories.push(payload),
    detail: longLabel,
  },
  {
    field: "spec.versions[0].name",
    schemaPath: "/spec/versions/0/name",
    edit: (c) => (c.spec.versions[0]!.name = payload),
    detail: longLabel,
  },
  {
    field: "metadata.name",
    schemaPath: "/metadata/name",
    edit: (c) => (c.metadata.name = payload),
    detail: dns1123,
  },
];

for (const { field, schemaPath, edit, detail } of hostileFields) {
  test(`code in ${field} is rejected with the API server's message, and nothing of it runs`, async () => {
    await assertRejected(edit, schemaPath, `${field}: Invalid value: ${JSON.stringify(payload)}: ${detail}`);
    assert.equal((globalThis as { crdgenPayloadRan?: boolean }).crdgenPayloadRan, undefined);
    assert.ok(!existsSync(marker), "the payload never ran");
  });
}

test("metadata.name must be <plural>.<group>", async () => {
  await assertRejected(
    (crd) => (crd.metadata.name = "gadgets.hostile.example.com"),
    "/metadata/name",
    'metadata.name: Invalid value: "gadgets.hostile.example.com": must be spec.names.plural+"."+spec.group',
  );
  await assertRejected(
    (crd) => delete crd.metadata.name,
    "/metadata/name",
    "metadata.name: Required value: name or generateName is required",
  );
});

test("a group needs a dot, kind and listKind differ, and a kind with '-' (valid to the API server) is no identifier", async () => {
  await assertRejected(
    (crd) => (crd.spec.group = "hostile"),
    "/spec/group",
    'spec.group: Invalid value: "hostile": should be a domain with at least one dot',
  );
  await assertRejected(
    (crd) => (crd.spec.names.listKind = "Widget"),
    "/spec/names/listKind",
    'spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same',
  );
  await assertRejected(
    (crd) => (crd.spec.names.kind = "Wid-get"),
    "/spec/names/kind",
    `spec.names.kind: Invalid value: "Wid-get": must be a TypeScript identifier to name the generated types (crdgen: no '-')`,
  );
});

test("invisible characters in a rejected value are escaped in the message", async () => {
  await assertRejected(
    (crd) => (crd.spec.names.plural = "wid\u202egets\u001b[2J"),
    "/spec/names/plural",
    `spec.names.plural: Invalid value: "wid\\u202egets\\u001b[2J": ${dns1035}`,
  );
});

const twoVersions = (crd: Crd, second: Partial<Version>) => {
  const first = crd.spec.versions[0]!;
  crd.spec.versions.push({ ...structuredClone(first), name: "v2", storage: false, ...second });
};

test("exactly one storage version: two or none is an error", async () => {
  const message = 'spec.versions: Invalid value: ["v1","v2"]: must have exactly one version marked as storage version';
  await assertRejected((crd) => twoVersions(crd, { storage: true }), "/spec/versions", message);
  await assertRejected(
    (crd) => {
      twoVersions(crd, { storage: false });
      crd.spec.versions[0]!.storage = false;
    },
    "/spec/versions",
    message,
  );
});

test("version names are unique DNS-1035 labels", async () => {
  await assertRejected(
    (crd) => twoVersions(crd, { name: "v1" }),
    "/spec/versions",
    'spec.versions: Invalid value: ["v1","v1"]: must contain unique version names',
  );
  await assertRejected(
    (crd) => (crd.spec.versions[0]!.name = "V1"),
    "/spec/versions/0/name",
    `spec.versions[0].name: Invalid value: "V1": ${dns1035}`,
  );
});

test("a served version needs a schema; an unserved one, like the API server, does not", async () => {
  await assertRejected(
    (crd) => twoVersions(crd, { schema: undefined }),
    "/spec/versions/1/schema/openAPIV3Schema",
    "spec.versions[1].schema.openAPIV3Schema: Required value: because otherwise all fields are pruned",
  );
  const { error } = await generateFrom((crd) => twoVersions(crd, { served: false, schema: undefined }));
  assert.equal(error, undefined);
});

test("scale subresource paths: required, simple, under .spec or .status, and present in the schema", async () => {
  const scale = (crd: Crd) => crd.spec.versions[0]!.subresources.scale;
  const at = "/spec/versions/0/subresources/scale";
  const field = "spec.versions[0].subresources.scale";
  await assertRejected(
    (crd) => delete scale(crd)["specReplicasPath"],
    `${at}/specReplicasPath`,
    `${field}.specReplicasPath: Required value`,
  );
  await assertRejected(
    (crd) => (scale(crd)["specReplicasPath"] = "spec.replicas"),
    `${at}/specReplicasPath`,
    `${field}.specReplicasPath: Invalid value: "spec.replicas": must be a simple json path starting with .`,
  );
  await assertRejected(
    (crd) => (scale(crd)["specReplicasPath"] = ".status.replicas"),
    `${at}/specReplicasPath`,
    `${field}.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec`,
  );
  await assertRejected(
    (crd) => (scale(crd)["statusReplicasPath"] = ".spec.replicas"),
    `${at}/statusReplicasPath`,
    `${field}.statusReplicasPath: Invalid value: ".spec.replicas": should be a json path under .status`,
  );
  await assertRejected(
    (crd) => (scale(crd)["labelSelectorPath"] = ".metadata.labels"),
    `${at}/labelSelectorPath`,
    `${field}.labelSelectorPath: Invalid value: ".metadata.labels": should be a json path under either .spec or .status`,
  );
  await assertRejected(
    (crd) => (scale(crd)["specReplicasPath"] = ".spec.size"),
    `${at}/specReplicasPath`,
    `${field}.specReplicasPath: Invalid value: ".spec.size": ` +
      "is not a field of the version's openAPIV3Schema (crdgen: the scale subresource reads it)",
  );
  // A label selector the schema leaves out is accepted: the API server then reports no selector (Agones does this).
  assert.equal((await generateFrom((crd) => (scale(crd)["labelSelectorPath"] = ".status.selector"))).error, undefined);
  // A field under x-kubernetes-preserve-unknown-fields exists as far as the schema can tell.
  const { error } = await generateFrom((crd) => {
    scale(crd)["specReplicasPath"] = ".spec.size";
    crd.spec.versions[0]!.schema!.openAPIV3Schema.properties!["spec"]!["x-kubernetes-preserve-unknown-fields"] = true;
  });
  assert.equal(error, undefined);
});

test("a status subresource is a mapping", async () => {
  await assertRejected(
    (crd) => (crd.spec.versions[0]!.subresources.status = "yes"),
    "/spec/versions/0/subresources/status",
    'spec.versions[0].subresources.status: Invalid value: "yes": must be a mapping (status: {})',
  );
});

test("uniqueItems: true is forbidden, as the API server forbids it (quadratic), wherever it is; false is accepted", async () => {
  const schemaAt = "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/tags";
  const fieldAt = "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[tags]";
  const forbidden = "Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic";
  const withTags = (tags: object) => (crd: Crd) => {
    (crd.spec.versions[0]!.schema!.openAPIV3Schema.properties!["spec"]!.properties as Record<string, object>)["tags"] =
      tags;
  };
  await assertRejected(
    withTags({ type: "array", uniqueItems: true, items: { type: "string" } }),
    `${schemaAt}/uniqueItems`,
    `${fieldAt}.uniqueItems: ${forbidden}`,
  );
  await assertRejected(
    withTags({ type: "array", items: { type: "array", items: { type: "string" }, uniqueItems: true } }),
    `${schemaAt}/items/uniqueItems`,
    `${fieldAt}.items.uniqueItems: ${forbidden}`,
  );
  await assertRejected(
    withTags({ type: "array", items: { type: "string" }, allOf: [{ uniqueItems: true }] }),
    `${schemaAt}/allOf/0/uniqueItems`,
    `${fieldAt}.allOf[0].uniqueItems: ${forbidden}`,
  );
  const { error } = await generateFrom(withTags({ type: "array", uniqueItems: false, items: { type: "string" } }));
  assert.equal(error, undefined);
});
