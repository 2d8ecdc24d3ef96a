// The explored tree is hostile input: files nested 50,000 levels deep, files over the size cap, binary files and
// symbolic links are each skipped with a warning naming the file and the reason, and the operator's own files next to
// them are still read (their flows are those of the untouched fixture).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { explore, flowKeys, type ExploreResult } from "@crdgen/explore";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const fixture = (name: string) => path.join(repoRoot, "test", "fixtures", "explore", name);

const DEEP = 50_000;
const hostile = {
  goParens: `package syncer\n\nvar deep = ${"(".repeat(DEEP)}1${")".repeat(DEEP)}\n`,
  goBlocks: `package syncer\n\nfunc deep() {\n${"{".repeat(DEEP)}${"}".repeat(DEEP)}\n}\n`,
  tsParens: `export const deep = ${"(".repeat(DEEP)}1${")".repeat(DEEP)};\n`,
  tsBlocks: `export function deep(): void {\n${"{".repeat(DEEP)}${"}".repeat(DEEP)}\n}\n`,
};

/** A copy of an explore fixture in a temporary folder, with `extra` files (relative path → content) written into it. */
function treeWith(name: string, extra: Record<string, string | Buffer>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "crdgen-explore-hostile-"));
  cpSync(fixture(name), dir, { recursive: true });
  for (const [file, content] of Object.entries(extra)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
  }
  return dir;
}

/** What the fixture reports untouched: the flows a hostile neighbour must not take away. */
const baseline = new Map<string, Promise<ExploreResult>>();
function untouched(name: string): Promise<ExploreResult> {
  let result = baseline.get(name);
  if (!result) baseline.set(name, (result = explore([fixture(name)])));
  return result;
}

async function assertFlowsKept(name: string, result: ExploreResult): Promise<void> {
  const expected = flowKeys(await untouched(name));
  assert.ok(expected.length > 0, `fixture ${name} reports flows`);
  assert.deepEqual(flowKeys(result), expected);
}

/** A file of `bytes` bytes that is valid Go or TypeScript: a declaration and a comment filling the rest. */
function oversized(declaration: string, bytes: number): string {
  return `${declaration}\n// ${"x".repeat(bytes - declaration.length - 4)}\n`;
}

test("Go files with 50,000 nested parentheses and blocks are skipped with a warning; the controller beside them is read", async () => {
  const dir = treeWith("channel-queue", { "syncer/parens.go": hostile.goParens, "syncer/blocks.go": hostile.goBlocks });
  try {
    const result = await explore([dir]);
    await assertFlowsKept("channel-queue", result);
    assert.deepEqual(result.warnings.sort(), [
      "syncer/blocks.go: nested 50,001 levels deep; limit 200; skipped",
      "syncer/parens.go: nested 50,000 levels deep; limit 200; skipped",
    ]);
    assert.equal(result.files.go, (await untouched("channel-queue")).files.go);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("TypeScript files with 50,000 nested parentheses and blocks are skipped with a warning; the controller beside them is read", async () => {
  const dir = treeWith("ts-client-node", { "src/parens.ts": hostile.tsParens, "src/blocks.ts": hostile.tsBlocks });
  try {
    const result = await explore([dir]);
    await assertFlowsKept("ts-client-node", result);
    assert.deepEqual(result.warnings.sort(), [
      "src/blocks.ts: nested 50,001 levels deep; limit 200; skipped",
      "src/parens.ts: nested 50,000 levels deep; limit 200; skipped",
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("Go and TypeScript files over 5 MB are skipped with a warning giving their size", async () => {
  const size = Math.round(7.2 * 2 ** 20);
  const dir = treeWith("channel-queue", {
    "syncer/big.go": oversized("package syncer", size),
    "web/big.ts": oversized("export const big = 1;", size),
    "web/small.ts": "export const small = 1;\n",
  });
  try {
    const result = await explore([dir]);
    await assertFlowsKept("channel-queue", result);
    assert.deepEqual(result.warnings.sort(), [
      "syncer/big.go: 7.2 MB; limit 5 MB; skipped",
      "web/big.ts: 7.2 MB; limit 5 MB; skipped",
    ]);
    assert.equal(result.files.ts, 1, "web/small.ts is read");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a file deep in a way brackets do not show (200,000 chained operators) is caught per file, leaving no facts behind", async () => {
  const goDir = treeWith("channel-queue", {
    "syncer/chain.go": `package syncer\n\nvar chain = ${"1 + ".repeat(200_000)}1\n`,
  });
  const tsDir = treeWith("ts-client-node", { "src/arrows.ts": `export const arrows = ${"() => ".repeat(50_000)}1;\n` });
  try {
    const go = await explore([goDir]);
    await assertFlowsKept("channel-queue", go);
    assert.deepEqual(go.warnings, ["syncer/chain.go: too deeply nested to read (the call stack ran out); skipped"]);
    const ts = await explore([tsDir]);
    await assertFlowsKept("ts-client-node", ts);
    assert.deepEqual(ts.warnings, [
      "src/arrows.ts: too deeply nested for the TypeScript parser (the call stack ran out); skipped",
    ]);
  } finally {
    rmSync(goDir, { recursive: true, force: true });
    rmSync(tsDir, { recursive: true, force: true });
  }
});

test("files nested exactly to the limit are read, in every shape that recurses: the limit fits the default stack", async () => {
  /** `open` written `times` times around `inner`: each shape below is nested exactly 200 brackets deep. */
  const nest = (times: number, open: string, inner: string, close: string) =>
    `${open.repeat(times)}${inner}${close.repeat(times)}`;
  const files = {
    "deep/parens.go": `package deep\n\nvar a = ${nest(200, "(", "1", ")")}\n`,
    "deep/calls.go": `package deep\n\nvar b = ${nest(200, "f(", "1", ")")}\n`,
    "deep/literals.go": `package deep\n\nvar c = ${nest(200, "T{", "", "}")}\n`,
    "deep/closures.go": `package deep\n\nvar d = ${nest(200, "func() { _ = ", "0", " }")}\n`,
    "deep/blocks.go": `package deep\n\nfunc e() ${nest(199, "{ if x ", "{}", " }")}\n`,
    "web/parens.ts": `export const a = ${nest(200, "(", "1", ")")};\n`,
    "web/calls.ts": `export const b = ${nest(200, "f(", "1", ")")};\n`,
    "web/objects.ts": `export const c = ${nest(100, "{ a: [", "1", "] }")};\n`,
    "web/arrows.ts": `export const d = ${nest(100, "() => { return (", "1", ") }")};\n`,
    "web/templates.ts": `export const e = ${nest(200, "`${", "1", "}`")};\n`,
    "web/classes.ts": `export const f = ${nest(100, "class { m() { return ", "1", " } }")};\n`,
  };
  const dir = treeWith("channel-queue", files);
  try {
    const result = await explore([dir]);
    await assertFlowsKept("channel-queue", result);
    assert.deepEqual(
      result.warnings.filter((w) => !/syntax error/.test(w)),
      [],
      "nothing at the limit is skipped",
    );
    const over = treeWith("channel-queue", {
      "deep/parens.go": `package deep\n\nvar a = ${nest(200, "((", "1", "))")}\n`,
    });
    try {
      assert.deepEqual((await explore([over])).warnings, [
        "deep/parens.go: nested 400 levels deep; limit 200; skipped",
      ]);
    } finally {
      rmSync(over, { recursive: true, force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("brackets inside strings, comments, templates and regular expressions do not count as nesting", async () => {
  const many = "(".repeat(300);
  const dir = treeWith("channel-queue", {
    "syncer/quoted.go": `package syncer\n\n// ${many}\n/* ${many} */\nvar q = "${many}" + \`${many}\` + string('(')\n`,
    "web/quoted.ts": [
      `// ${many}`,
      `/* ${many} */`,
      `export const s = "${many}" + '${many}';`,
      `export const t = \`${many}\${"{"}${many}\`;`,
      `export const r = /\\(${many.replaceAll("(", "\\(")}[(]/;`,
      `export const d = 4 / 2 / (1);`,
      "",
    ].join("\n"),
  });
  try {
    const result = await explore([dir]);
    await assertFlowsKept("channel-queue", result);
    assert.deepEqual(result.warnings, []);
    assert.equal(result.files.ts, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("binary and non-UTF-8 files named .go or .ts are skipped with a warning", async () => {
  const dir = treeWith("channel-queue", {
    "syncer/image.go": Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]),
    "syncer/latin1.go": Buffer.from('package syncer\n\nconst cafe = "caf\xe9"\n', "latin1"),
    "web/latin1.ts": Buffer.from('export const cafe = "caf\xe9";\n', "latin1"),
    "web/utf8.ts": 'export const cafe = "café";\n',
  });
  try {
    const result = await explore([dir]);
    await assertFlowsKept("channel-queue", result);
    assert.deepEqual(result.warnings.sort(), [
      "syncer/image.go: binary (contains NUL bytes); skipped",
      "syncer/latin1.go: not UTF-8 text; skipped",
      "web/latin1.ts: not UTF-8 text; skipped",
    ]);
    assert.equal(result.files.ts, 1, "web/utf8.ts is read");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("symbolic links are not followed: a loop ends, and a controller outside the root is not read", async () => {
  const dir = treeWith("channel-queue", {});
  try {
    symlinkSync(dir, path.join(dir, "syncer", "loop"));
    symlinkSync("..", path.join(dir, "queue", "parent"));
    symlinkSync(fixture("ts-client-node"), path.join(dir, "outside"));
    symlinkSync(path.join(fixture("ts-client-node"), "src", "mirror.ts"), path.join(dir, "mirror.ts"));
    symlinkSync(path.join(dir, "no-such-file.go"), path.join(dir, "dangling.go"));
    const result = await explore([dir]);
    await assertFlowsKept("channel-queue", result);
    assert.equal(result.files.ts, 0, "nothing is read through a link");
    assert.deepEqual(result.warnings.sort(), [
      "dangling.go: symbolic link; not followed",
      "mirror.ts: symbolic link; not followed",
      "outside: symbolic link; not followed",
      "queue/parent: symbolic link; not followed",
      "syncer/loop: symbolic link; not followed",
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("crdgen explore on a hostile tree: exit 0, the controller reported, every hostile file named in a warning", () => {
  const dir = treeWith("channel-queue", {
    "syncer/parens.go": hostile.goParens,
    "syncer/blocks.go": hostile.goBlocks,
    "web/parens.ts": hostile.tsParens,
    "web/blocks.ts": hostile.tsBlocks,
    "syncer/big.go": oversized("package syncer", 6 * 2 ** 20),
    "syncer/image.go": Buffer.from([0x00, 0x01, 0x02]),
  });
  try {
    symlinkSync(dir, path.join(dir, "loop"));
    const run = spawnSync(process.execPath, [path.join(repoRoot, "bin", "crdgen.js"), "explore", dir], {
      encoding: "utf8",
    });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr, "");
    assert.match(run.stdout, /^controller /m);
    assert.match(run.stdout, /watches {4}ConfigMap via Watch/);
    const warnings = run.stdout.slice(run.stdout.indexOf("Warnings:\n")).split("\n").slice(1, -1).sort();
    assert.deepEqual(warnings, [
      "  - loop: symbolic link; not followed",
      "  - syncer/big.go: 6 MB; limit 5 MB; skipped",
      "  - syncer/blocks.go: nested 50,001 levels deep; limit 200; skipped",
      "  - syncer/image.go: binary (contains NUL bytes); skipped",
      "  - syncer/parens.go: nested 50,000 levels deep; limit 200; skipped",
      "  - web/blocks.ts: nested 50,001 levels deep; limit 200; skipped",
      "  - web/parens.ts: nested 50,000 levels deep; limit 200; skipped",
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
