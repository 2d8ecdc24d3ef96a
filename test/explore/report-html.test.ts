// `--format html` in a real browser (Debian's chromium driven by playwright-core): the page renders every flow,
// filtering by a kind shows only that kind's flows, it logs no error and fetches nothing but itself.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { explore, filterByKind, htmlReport, kindsOf, locationUrl, type ExploreResult } from "@crdgen/explore";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const fixture = path.join(repoRoot, "test", "fixtures", "explore", "controller-runtime-builders");
/** Debian's chromium package; CHROMIUM names another build of Chromium. */
const chromiumPath = process.env["CHROMIUM"] ?? "/usr/bin/chromium";
const template = "https://example.invalid/blob/main/{path}#L{line}";

/** The flows the page draws: one per handler of each watched kind (a source without handlers is one too). */
function flowCount(result: ExploreResult): number {
  return result.controllers.reduce(
    (n, c) =>
      n +
      Math.max(
        1,
        c.sources.reduce((m, s) => m + Math.max(1, s.handlers.length), 0),
      ),
    0,
  );
}

test("locations link through the template: {path}, {abspath} and {line} filled in, segments encoded", () => {
  const loc = { file: "pkg/a b/c.go", line: 12 };
  assert.equal(
    locationUrl(loc, { linkTemplate: template, root: "/r" }),
    "https://example.invalid/blob/main/pkg/a%20b/c.go#L12",
  );
  assert.equal(
    locationUrl(loc, { linkTemplate: "vscode://file{abspath}:{line}", root: "/r" }),
    "vscode://file/r/pkg/a%20b/c.go:12",
  );
  assert.equal(locationUrl(loc, { root: "/r" }), "file:///r/pkg/a%20b/c.go#L12");
});

test("the page is self-contained: inline style and script, a policy that forbids fetching", async () => {
  const html = htmlReport(await explore([fixture]), { linkTemplate: template, root: fixture });
  assert.match(html, /Content-Security-Policy" content="default-src 'none'/);
  assert.doesNotMatch(html, /<link\b|\ssrc=|@import|url\(/i);
  const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!);
  assert.ok(hrefs.length > 0);
  for (const href of hrefs) assert.match(href, /^https:\/\/example\.invalid\/blob\/main\/internal\/[\w/.]+\.go#L\d+$/);
});

test("crdgen explore --format html --link-template writes the page with the template's links", () => {
  const run = spawnSync(
    process.execPath,
    [
      path.join(repoRoot, "bin", "crdgen.js"),
      "explore",
      path.join("test", "fixtures", "explore", "ts-typed"),
      "--format",
      "html",
      "--link-template",
      "vscode://file{abspath}:{line}",
    ],
    { cwd: repoRoot, encoding: "utf8" },
  );
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^<!doctype html>/);
  const cordon = path.join(repoRoot, "test", "fixtures", "explore", "ts-typed", "src", "nodes.ts");
  assert.ok(run.stdout.includes(`href="vscode://file${cordon}:33"`), "NodeCordoner.cordon links to its line");
});

test("in chromium the page renders every flow, a kind filter shows only its flows, no error, no request", async () => {
  assert.ok(
    existsSync(chromiumPath),
    `chromium not found at ${chromiumPath}: install Debian's package (apt-get install -y chromium) or set CHROMIUM; ` +
      "explore's HTML report is tested in a real browser",
  );
  const result = await explore([fixture]);
  const kinds = kindsOf(result);
  assert.ok(kinds.length >= 2, "the fixture watches several kinds");
  const dir = mkdtempSync(path.join(os.tmpdir(), "explore-html-"));
  const file = path.join(dir, "flows.html");
  writeFileSync(file, htmlReport(result, { linkTemplate: template, root: fixture }));
  const context = await chromium.launchPersistentContext(path.join(dir, "profile"), {
    executablePath: chromiumPath,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  try {
    const page = await context.newPage();
    const errors: string[] = [];
    const requests: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    page.on("pageerror", (e) => errors.push(e.message));
    context.on("request", (r) => requests.push(r.url()));
    const url = pathToFileURL(file).href;
    await page.goto(url);
    const visible = () => page.locator(".flow:visible");
    assert.equal(await visible().count(), flowCount(result), "every flow is drawn");
    assert.equal(await page.locator("#shown").textContent(), `${flowCount(result)} of ${flowCount(result)} flow(s)`);
    for (const kind of kinds) {
      await page.selectOption("#kind", kind);
      const shownKinds = await Promise.all((await visible().all()).map((row) => row.getAttribute("data-kind")));
      assert.equal(shownKinds.length, flowCount(filterByKind(result, kind)), `${kind}: its flows are all shown`);
      assert.deepEqual([...new Set(shownKinds)], [kind], `${kind}: only its flows are shown`);
      const sections = await page.locator("section.controller:visible").count();
      assert.equal(sections, filterByKind(result, kind).controllers.length, `${kind}: only its controllers`);
    }
    await page.selectOption("#kind", "");
    await page.selectOption("#controller", "c0");
    assert.equal(await page.locator("section.controller:visible").count(), 1);
    assert.equal(await visible().count(), flowCount({ ...result, controllers: [result.controllers[0]!] }));
    // The filter is kept in the address, so a link to a filtered view opens filtered.
    await page.selectOption("#kind", kinds[0]!);
    await page.reload();
    assert.equal(await page.locator("#kind").inputValue(), kinds[0]);
    assert.deepEqual(errors, [], "no console error");
    assert.deepEqual([...new Set(requests)], [url], "the page fetches nothing but itself");
  } finally {
    await context.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
