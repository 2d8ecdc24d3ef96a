// Kinds that are reserved words of TypeScript: the API server accepts a kind `import` or `null`, and crdgen used to
// emit `export interface import {` (exit 0, output tsc rejects). Their TypeScript names get a "_" suffix; the kind on
// the wire stays as the CRD says.
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import { pathToFileURL } from "node:url";
import { generate } from "../../../generator/generate.js";
import { kindTypeName } from "../../../generator/model/type-names.js";
import { compileOutput, repoTempDir } from "../support/compile-output.js";

const kinds = ["import", "class", "enum", "new", "this", "function", "delete", "void", "null", "true", "in", "var"];

/** A CRD of `kind` (quoted: `null` and `true` would otherwise be YAML's null and boolean). */
function crd(kind: string): string {
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: ${kind}s.reserved.example.com }
spec:
  group: reserved.example.com
  names: { kind: "${kind}", plural: ${kind}s }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      subresources: { status: {} }
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, properties: { size: { type: integer, default: 1 } } }
            status: { type: object, properties: { ready: { type: boolean } } }
`;
}

test("a kind that is a reserved word is named <kind>_ in TypeScript; other kinds keep their name", () => {
  assert.deepEqual(
    kinds.map(kindTypeName),
    kinds.map((k) => `${k}_`),
  );
  for (const kind of ["Import", "Widget", "Promise", "type", "string_"]) assert.equal(kindTypeName(kind), kind);
  assert.equal(kindTypeName("string"), "string_");
});

test("twelve reserved-word kinds generate code that type-checks, with every option, and keeps the kind on the wire", async () => {
  const dir = repoTempDir("reserved-kinds-");
  after(() => rmSync(dir, { recursive: true, force: true }));
  const inputs = kinds.map((kind) => {
    const file = path.join(dir, `${kind}.yaml`);
    writeFileSync(file, crd(kind));
    return file;
  });
  await generate({
    inputs,
    outDir: path.join(dir, "out"),
    hooksDir: path.join(dir, "hooks"),
    testsDir: path.join(dir, "tests"),
    validation: true,
    webhooks: true,
  });
  const compiled = compileOutput(dir);
  assert.equal(compiled.status, 0, compiled.output);
  for (const kind of kinds) {
    const types = (await import(
      pathToFileURL(path.join(compiled.jsDir, "out/reserved.example.com/v1", `${kind}.types.js`)).href
    )) as Record<string, { kind: string; listKind: string } | undefined>;
    const resource = types[`${kind}_Resource`];
    assert.deepEqual(resource && [resource.kind, resource.listKind], [kind, `${kind}List`], kind);
  }
});
