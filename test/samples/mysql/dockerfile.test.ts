// The sample's Dockerfile builds on a current Node.js LTS line that every package's `engines` admits, and no
// dependency's install script runs while the image is built.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

const root = new URL("../../../../", import.meta.url);
const dockerfile = await readFile(new URL("Dockerfile", root), "utf8");
const instructions = dockerfile.split("\n").filter((line) => !line.startsWith("#"));

/** Node.js lines under long-term support on the day this test was last reviewed; EOL lines must go. */
const ltsLines = new Set([22, 24, 26]);

test("every stage builds on the same Node.js LTS line, named by a tag without `latest`", () => {
  const bases = instructions.filter((line) => line.startsWith("FROM ")).map((line) => line.split(/\s+/)[1] ?? "");
  assert.ok(bases.length >= 2, "a build stage and a runtime stage");
  const majors = bases.map((image) => {
    const match = /^node:(\d+)-[a-z]+(-slim)?$/.exec(image);
    assert.ok(match, `${image} is node:<major>-<debian release>[-slim]`);
    return Number(match[1]);
  });
  assert.equal(new Set(majors).size, 1, `one Node.js line in every stage: ${bases.join(", ")}`);
  assert.ok(ltsLines.has(majors[0]!), `node ${majors[0]} is an LTS line (${[...ltsLines].join(", ")})`);
});

test("the image's Node.js line satisfies every package's engines range", async () => {
  const major = Number(/FROM node:(\d+)/.exec(dockerfile)?.[1]);
  for (const manifest of ["package.json", "runtime/package.json", "explore/package.json"]) {
    const { engines } = JSON.parse(await readFile(new URL(manifest, root), "utf8")) as { engines: { node: string } };
    const minimum = /^>=(\d+)$/.exec(engines.node);
    assert.ok(minimum, `${manifest} engines.node is a plain lower bound (${engines.node})`);
    assert.ok(major >= Number(minimum[1]), `${manifest} admits node ${major} (${engines.node})`);
  }
});

test("no install script runs in the image build (tree-sitter-go's native build among them)", () => {
  const installs = instructions.filter((line) => /\bnpm (ci|install|i)\b/.test(line));
  assert.ok(installs.length >= 2, "both stages install dependencies");
  for (const line of installs) assert.match(line, /--ignore-scripts/, line);
});
