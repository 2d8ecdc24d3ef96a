// TypeScript locations count lines as ts-morph does, whatever the file's line breaks: "\r\n" is one break, a lone "\r"
// none (the reader indexes a file's breaks once instead of asking ts-morph to scan from the start each time).
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { explore, textReport } from "@crdgen/explore";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const fixture = path.join(repoRoot, "test", "fixtures", "explore", "ts-client-node");

/** The fixture in a temporary folder, each TypeScript file given a first line and its breaks rewritten. */
async function reportWith(firstLine: string, lineBreak: string): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "crdgen-explore-breaks-"));
  try {
    cpSync(fixture, dir, { recursive: true });
    const src = path.join(dir, "src");
    for (const name of readdirSync(src).filter((n) => n.endsWith(".ts"))) {
      const file = path.join(src, name);
      writeFileSync(file, firstLine + readFileSync(file, "utf8").replaceAll("\n", lineBreak));
    }
    return textReport(await explore([dir])).replace(/^.*\n/, "");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("a lone carriage return is no line break, and CRLF is one", async () => {
  const lf = await reportWith("// one line\n", "\n");
  assert.match(lf, /mirrorSecret \(src\/mirror\.ts:38\)/, "the fixture's processing function, one line down");
  assert.equal(await reportWith("// one\rline\r\n", "\r\n"), lf);
});
