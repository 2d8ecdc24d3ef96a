// The TypeScript reader type-checks and reads only the files that can take part in a flow: those joined by imports
// (either way) to a file using a library explore knows, or a shape it reads by name. A web UI beside an operator is
// parsed for its warnings only. Internal rule, so its module is loaded from the built package.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { explore, flowKeys } from "@crdgen/explore";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const built = (file: string) => import(path.join(repoRoot, "explore", "dist", "ts", file));
type Source = { file: string; text: string };
const { filesThatCanTakePart, declaresGlobals } = (await built("closure.js")) as {
  filesThatCanTakePart: (sources: Source[], resolver: unknown) => Set<string>;
  declaresGlobals: (sf: unknown) => boolean;
};
const { ModuleResolver } = (await built("modules.js")) as {
  ModuleResolver: new (files: Set<string>, packages: unknown[]) => unknown;
};
const { ts } = await import("ts-morph");

function taking(files: Record<string, string>): string[] {
  const sources = Object.entries(files).map(([file, text]) => ({ file, text }));
  return [...filesThatCanTakePart(sources, new ModuleResolver(new Set(Object.keys(files)), []))].sort();
}

test("files joined by imports to a Kubernetes library's user are read, either way; a UI beside them is not", () => {
  assert.deepEqual(
    taking({
      "op/main.ts": 'import * as k8s from "@kubernetes/client-node";\nimport { sync } from "./sync.js";\n',
      "op/sync.ts": "export function sync(key: string) { return key; }\n",
      "op/cli.ts": 'import "./main.js";\n',
      "ui/app.tsx": 'import React from "react";\nimport { View } from "./view.js";\n',
      "ui/view.tsx": "export const View = () => null;\n",
    }),
    ["op/cli.ts", "op/main.ts", "op/sync.ts"],
  );
});

test("a known module through require, import() or a subpath, and the shapes read by name, make a file count", () => {
  const read = taking({
    "a.ts": 'const fastq = require("fastq");\n',
    "b.ts": 'export const pepr = () => import("pepr/dist/lib");\n',
    "c.ts": 'export function raw(w: any) { w.watch(/* pods */ "/api/v1/pods", {}, () => 0, () => 0); }\n',
    "d.ts": "export function add(i: any, h: any) { i.addEventHandler(h); }\n",
    "e.ts": "export class JobQueue {}\n",
    "f.ts": 'import { format } from "date-fns";\nexport const watch = (path: string) => format(path);\n',
    "g.ts": 'export const get = (url: string) => fetch(url);\nget("/api/v1/pods");\n',
  });
  assert.deepEqual(read, ["a.ts", "b.ts", "c.ts", "d.ts", "e.ts"]);
});

test("a file declaring globals (a script, declare global, declare module) is seen as such", () => {
  const parse = (text: string) => ts.createSourceFile("/x.ts", text, ts.ScriptTarget.ES2022, true);
  assert.equal(declaresGlobals(parse("declare const shared: number;\n")), true);
  assert.equal(declaresGlobals(parse("export {};\ndeclare global { const shared: number; }\n")), true);
  assert.equal(declaresGlobals(parse('export {};\ndeclare module "x" { const y: number; }\n')), true);
  assert.equal(declaresGlobals(parse("export const local = 1;\nnamespace N { export const z = 1; }\n")), false);
});

test("a UI beside a TypeScript operator leaves its flows as they were and still reports its syntax errors", async () => {
  const fixture = path.join(repoRoot, "test", "fixtures", "explore", "ts-client-node");
  const alone = await explore([fixture]);
  const dir = mkdtempSync(path.join(os.tmpdir(), "crdgen-explore-ui-"));
  try {
    cpSync(fixture, dir, { recursive: true });
    writeFileSync(path.join(dir, "src", "ui.ts"), 'import { render } from "ui-kit";\nrender(() => {\n');
    const withUi = await explore([dir]);
    assert.deepEqual(flowKeys(withUi), flowKeys(alone));
    assert.equal(withUi.files.ts, alone.files.ts + 1);
    assert.deepEqual(withUi.warnings, [
      "src/ui.ts:3: TypeScript syntax error; the rest of the file was read as far as the parser could",
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
