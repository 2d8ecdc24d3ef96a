// --format: the formatter pass changes only the layout of the generated code; what it writes parses, type-checks and
// is the same program (the same tokens) as the unformatted output.
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import { formatGeneratedFiles } from "../../../generator/emit/format-files.js";
import type { PlannedFile } from "../../../generator/emit/plan-files.js";
import { generate } from "../../../generator/generate.js";
import { compileOutput, repoRoot, repoTempDir } from "../support/compile-output.js";
import { readTree } from "../support/read-tree.js";
import { programTokens, syntaxErrors } from "../support/typescript-tokens.js";

const temps: string[] = [];
after(() => temps.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** The sample generated with everything it can emit (webhooks, validation, hooks and tests) into a fresh folder. */
async function generateSample(format: boolean): Promise<string> {
  const dir = repoTempDir("format-");
  temps.push(dir);
  await generate({
    inputs: [path.join(repoRoot, "samples/mysql/crd.yaml")],
    outDir: path.join(dir, "generated"),
    hooksDir: path.join(dir, "src"),
    testsDir: path.join(dir, "test"),
    webhooks: true,
    validation: true,
    format,
  });
  return dir;
}

test("the formatter formats every file of a run on its own text, however many files it is given", async () => {
  // Each text is shorter than the one before it: edits computed on an earlier file's text would land inside tokens.
  const files: PlannedFile[] = [
    { path: "a.ts", owner: "generator", content: "export   const longerName =  { a:1,b:  [1,2] };\n" },
    { path: "b.ts", owner: "generator", content: "export function f( x:number ){return x*2}\n" },
    { path: "c.ts", owner: "generator", content: "let   y=1;\n" },
    { path: "d.ts", owner: "user", content: "let   untouched=1;\n" },
  ];
  await formatGeneratedFiles(files);
  assert.deepEqual(
    files.map((f) => f.content),
    [
      "export const longerName = { a: 1, b: [1, 2] };\n",
      "export function f(x: number) { return x * 2 }\n",
      "let y = 1;\n",
      "let   untouched=1;\n",
    ],
  );
});

test("the sample's formatted output parses, type-checks, and is the same program as the unformatted output", async () => {
  const [formattedDir, plainDir] = [await generateSample(true), await generateSample(false)];
  const [formatted, plain] = [await readTree(formattedDir), await readTree(plainDir)];
  assert.deepEqual([...formatted.keys()], [...plain.keys()], "the same files");
  const sources = [...formatted.keys()].filter((f) => f.endsWith(".ts"));
  assert.ok(sources.length >= 13, `the sample's output holds ${sources.length} .ts files`);
  for (const file of sources) {
    assert.deepEqual(syntaxErrors(file, formatted.get(file)!), [], `${file} parses`);
    assert.deepEqual(
      programTokens(file, formatted.get(file)!),
      programTokens(file, plain.get(file)!),
      `${file}: the same tokens`,
    );
  }
  const compiled = compileOutput(formattedDir);
  assert.equal(compiled.status, 0, compiled.output);
});
