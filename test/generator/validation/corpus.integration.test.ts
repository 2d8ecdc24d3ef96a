// --validation over the whole corpus of real CRDs (../shared/crds): how many of its CEL rules crdgen evaluates versus
// reports as skipped, and validators compiled for every CRD that never throw and point every error into the schema.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { compileRule } from "#runtime/validation/cel-rules.js";
import { structuralNode } from "../../../generator/validation/structural-skeleton.js";
import type { StructuralNode } from "@crdgen/runtime/validation";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");

test("corpus CEL rules: crdgen evaluates or reports as skipped every one, and says how many", () => {
  const corpusDir = path.resolve(repoRoot, "../shared/crds");
  assert.ok(existsSync(path.join(corpusDir, "FEATURES.tsv")), `the CRD corpus is missing at ${corpusDir}`);
  const features = readFileSync(path.join(corpusDir, "FEATURES.tsv"), "utf8").trim().split("\n");
  const column = features[0]!.split("\t").indexOf("cel_rules_count");
  const expectedTotal = features.slice(1).reduce((n, row) => n + Number(row.split("\t")[column]), 0);
  let supported = 0;
  const skipped = new Map<string, number>();
  const visit = (node: StructuralNode) => {
    for (const rule of node.rules ?? []) {
      const compiled = compileRule(rule);
      if (compiled.supported) supported++;
      else skipped.set(compiled.reason, (skipped.get(compiled.reason) ?? 0) + 1);
    }
    for (const child of Object.values(node.properties ?? {})) visit(child);
    if (node.items) visit(node.items);
    if (node.additionalProperties) visit(node.additionalProperties);
  };
  for (const project of readdirSync(corpusDir).sort()) {
    if (!statSync(path.join(corpusDir, project)).isDirectory()) continue;
    for (const file of readdirSync(path.join(corpusDir, project)).filter((f) => f.endsWith(".yaml"))) {
      const crd = parse(readFileSync(path.join(corpusDir, project, file), "utf8")) as {
        spec: { versions: Array<{ schema: { openAPIV3Schema: Record<string, unknown> } }> };
      };
      for (const version of crd.spec.versions) visit(structuralNode(version.schema.openAPIV3Schema));
    }
  }
  const skippedTotal = [...skipped.values()].reduce((a, b) => a + b, 0);
  console.log(
    `corpus CEL rules: ${supported + skippedTotal} in all, ${supported} evaluated by crdgen, ${skippedTotal} skipped`,
  );
  for (const [reason, n] of [...skipped].sort((a, b) => b[1] - a[1])) console.log(`  skipped ${n}: ${reason}`);
  assert.equal(
    supported + skippedTotal,
    expectedTotal,
    "every rule FEATURES.tsv counts is either evaluated or skipped",
  );
  assert.ok(
    supported / expectedTotal > 0.95,
    `crdgen evaluates at least 95% of the corpus's CEL rules (${supported}/${expectedTotal})`,
  );
});

/** An object shaped by the schema down to `depth` levels, with a wrongly typed value at every leaf. */
function wrongLeaves(node: StructuralNode, depth: number): unknown {
  if (depth === 0 || node.preserveUnknownFields) return node.type === "string" ? 12345 : "wrong";
  if (node.type === "object" && node.properties)
    return Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, wrongLeaves(v, depth - 1)]));
  if (node.type === "array" && node.items) return [wrongLeaves(node.items, depth - 1)];
  return node.type === "string" ? 12345 : "wrong";
}

/** The value at a JSON pointer (undefined when it does not resolve). */
function at(root: unknown, pointer: string): unknown {
  let value = root;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (value === null || typeof value !== "object" || !Object.prototype.hasOwnProperty.call(value, key))
      return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

test("corpus: validate() never throws, and every error's schemaPath points into the CRD's openAPIV3Schema", async () => {
  const { compileSchemaValidator } = await import("../../../generator/validation/compile-validator.js");
  const { toAjvSchema } = await import("../../../generator/validation/ajv-schema.js");
  const { validateResource, validatorRequire } = await import("@crdgen/runtime/validation");
  const corpusDir = path.resolve(repoRoot, "../shared/crds");
  let objects = 0;
  let errors = 0;
  const unresolved: string[] = [];
  for (const project of readdirSync(corpusDir).sort()) {
    if (!statSync(path.join(corpusDir, project)).isDirectory()) continue;
    for (const file of readdirSync(path.join(corpusDir, project)).filter((f) => f.endsWith(".yaml"))) {
      const crd = parse(readFileSync(path.join(corpusDir, project, file), "utf8")) as {
        spec: { versions: Array<{ storage: boolean; schema: { openAPIV3Schema: Record<string, unknown> } }> };
      };
      const version = crd.spec.versions.find((v) => v.storage) ?? crd.spec.versions[0]!;
      const raw = version.schema.openAPIV3Schema;
      // The generated module's code, run the way its template runs it.
      const module: { exports: unknown } = { exports: {} };
      // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the test runs the generated validator module's code
      const load = new Function("require", "module", compileSchemaValidator(toAjvSchema(raw).schema)) as (
        require: typeof validatorRequire,
        module: { exports: unknown },
      ) => void;
      load(validatorRequire, module);
      const structure = structuralNode(raw);
      const validation = { schemaValidator: module.exports as never, structure };
      for (const spec of [
        {},
        wrongLeaves(structure.properties?.["spec"] ?? {}, 2),
        wrongLeaves(structure.properties?.["spec"] ?? {}, 6),
      ]) {
        const result = validateResource({ apiVersion: "x/v1", kind: "X", metadata: { name: "x" }, spec }, validation);
        objects++;
        for (const e of result.errors) {
          errors++;
          if (e.schemaPath === "") continue; // the "rules not checked" note has no schema location
          const keyword = e.schemaPath.split("/").at(-1)!;
          const parent = at(raw, e.schemaPath.slice(0, e.schemaPath.lastIndexOf("/")));
          const resolves =
            keyword === "rule"
              ? typeof at(raw, e.schemaPath) === "string"
              : parent !== null && typeof parent === "object" && keyword in parent;
          if (!resolves) unresolved.push(`${project}/${file}: ${e.schemaPath} (${e.keyword} at ${e.instancePath})`);
        }
      }
    }
  }
  console.log(
    `corpus validate(): ${objects} objects, ${errors} errors, ${unresolved.length} schema paths that do not resolve`,
  );
  assert.deepEqual(unresolved.slice(0, 20), [], `${unresolved.length} error schema paths do not resolve in their CRD`);
  assert.ok(errors > 1000, `the wrongly typed objects produce errors (${errors})`);
});
