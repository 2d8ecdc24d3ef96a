// `--format html`: one self-contained page (inline style and script, nothing fetched at view time) with a filter by
// watched kind and by controller, and each flow drawn in the order an event travels: source → handler → queue →
// worker → processing function. Every location is a link made from a template (an editor's or a VCS's URL).
import path from "node:path";
import { pathToFileURL } from "node:url";
import { kindsOf } from "./by-kind.js";
import type { Loc } from "./facts.js";
import type { Controller, ExploreResult, Handler, Place, Source, Worker } from "./model.js";
import { notReadSummary, unsupportedLanguages } from "./model.js";
import { htmlScript, htmlStyle } from "./report-html-assets.js";
import { workerName } from "./report-names.js";

export interface HtmlOptions {
  /**
   * The URL each location links to: `{path}` is the file as reported (relative to the explored folders' common
   * ancestor), `{abspath}` the absolute file, `{line}` the line. E.g. `vscode://file{abspath}:{line}` or
   * `https://github.com/org/repo/blob/main/{path}#L{line}`. Default: the file's `file://` URL.
   */
  linkTemplate?: string;
  /** The absolute folder the reported paths are relative to (the explored folders' common ancestor). */
  root?: string;
}

const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");

/** The link a location gets: the template with its placeholders filled, each path segment URL-encoded. */
export function locationUrl(loc: Loc, options: HtmlOptions = {}): string {
  const abs = path.resolve(options.root ?? ".", loc.file);
  if (options.linkTemplate === undefined) return `${pathToFileURL(abs).href}#L${loc.line}`;
  const encode = (p: string) => p.split("/").map(encodeURIComponent).join("/");
  return options.linkTemplate
    .replaceAll("{path}", encode(loc.file))
    .replaceAll("{abspath}", encode(abs.split(path.sep).join("/")).replace(/^([^/])/, "/$1"))
    .replaceAll("{line}", String(loc.line));
}

class Page {
  constructor(private readonly options: HtmlOptions) {}

  link(loc: Loc | undefined): string {
    if (!loc) return `<span class="library">(library)</span>`;
    const text = escapeHtml(`${loc.file}:${loc.line}`);
    return `<a class="loc" href="${escapeHtml(locationUrl(loc, this.options))}">${text}</a>`;
  }

  place(p: Place, detail = ""): string {
    const extra = detail ? `<span class="detail">${escapeHtml(detail)}</span>` : "";
    return `<span class="name">${escapeHtml(p.name)}</span>${extra} ${this.link(p.loc)}`;
  }

  stage(role: string, body: string): string {
    return `<div class="stage ${role}"><span class="role">${role}</span>${body}</div>`;
  }

  source(s: Source | undefined): string {
    if (!s) return this.stage("source", `<span class="detail">(no watch found)</span>`);
    const registered = s.registeredAt
      ? `<span class="detail">handlers added at ${this.link(s.registeredAt)}</span>`
      : "";
    const or = (s.alternatives ?? [])
      .map((a) => `<span class="detail">or ${escapeHtml(a.via)}</span> ${this.link(a.loc)}`)
      .join("");
    return this.stage(
      "source",
      `<span class="name">${escapeHtml(s.kind)}</span><span class="detail">via ${escapeHtml(s.via)}</span> ${this.link(s.loc)}${or}${registered}`,
    );
  }

  handler(h: Handler | undefined): string {
    if (!h) return this.stage("handler", `<span class="detail">(no handler found)</span>`);
    const producers = h.producers
      .map((p) => `<span class="detail">${escapeHtml(p.text)} ${this.link(p.loc)}</span>`)
      .join("");
    return this.stage("handler", this.place(h.fn, h.events.join(", ")) + producers);
  }

  queue(c: Controller): string {
    const q = c.queue;
    const name = [q.ref, q.name ? `"${q.name}"` : undefined].filter(Boolean).join(" ") || c.name;
    const detail = `${q.type}${q.rateLimiter && q.rateLimiter !== "none" ? `, limiter ${q.rateLimiter}` : ""}`;
    return this.stage("queue", this.place({ name, ...(q.loc ? { loc: q.loc } : {}) }, detail));
  }

  worker(w: Worker): string {
    const detail = (label: string, loc: Loc | undefined) =>
      `<span class="detail">${escapeHtml(label)} ${this.link(loc)}</span>`;
    const get =
      (w.get ? detail(`get ${w.getText ?? ""}`, w.get) : "") +
      w.requeues.map((r) => detail(`requeue ${r.method}`, r.loc)).join("") +
      (w.enqueues ?? [])
        .map(
          (e) =>
            `<span class="detail">enqueue ${escapeHtml(e.text)} ${this.link(e.loc)} → queue ${this.link(e.queue)}</span>`,
        )
        .join("");
    const loop = this.stage(
      "worker",
      this.place({ name: workerName(w), ...(w.loop.loc ? { loc: w.loop.loc } : {}) }) + get,
    );
    const process = w.process
      ? this.place(w.process) +
        (w.processAlso ?? []).map((p) => `<span class="detail">or</span>${this.place(p)}`).join("") +
        w.then
          .map((chain) => `<span class="detail">then ${chain.map((p) => this.place(p)).join(" → ")}</span>`)
          .join("")
      : `<span class="detail">(processing function not found)</span>`;
    return `${loop}<span class="arrow">→</span>${this.stage("process", process)}`;
  }

  /** One flow: a watched kind's handler through this controller's queue to each of its workers. */
  flow(c: Controller, index: number, s: Source | undefined, h: Handler | undefined): string {
    const workers = c.workers.length
      ? c.workers.map((w) => this.worker(w)).join(`<span class="arrow">|</span>`)
      : this.stage("worker", `<span class="detail">(no worker found)</span>`);
    const stages = [this.source(s), this.handler(h), this.queue(c), workers].join(`<span class="arrow">→</span>`);
    return `<div class="flow" data-kind="${escapeHtml(s?.kind ?? "")}" data-controller="c${index}">${stages}</div>`;
  }

  controller(c: Controller, index: number): string {
    const rows = c.sources.length
      ? c.sources.flatMap((s) =>
          s.handlers.length ? s.handlers.map((h) => this.flow(c, index, s, h)) : [this.flow(c, index, s, undefined)],
        )
      : [this.flow(c, index, undefined, undefined)];
    const title = `<h2>controller <span class="name">${escapeHtml(c.name)}</span> ${this.link(c.loc)}</h2>`;
    return `<section class="controller" id="c${index}">${title}${rows.join("")}</section>`;
  }
}

function options(values: { value: string; label: string }[], all: string): string {
  return [`<option value="">${escapeHtml(all)}</option>`]
    .concat(values.map((v) => `<option value="${escapeHtml(v.value)}">${escapeHtml(v.label)}</option>`))
    .join("");
}

function summary(result: ExploreResult): string {
  const { go, ts } = result.files;
  const notRead = result.notRead?.length ? `; not read: ${notReadSummary(result.notRead)}` : "";
  const kinds = kindsOf(result).length;
  const found = unsupportedLanguages(result) ?? `${result.controllers.length} controller(s), ${kinds} watched kind(s)`;
  const only = result.onlyKind ? `; only the flows of ${result.onlyKind.kind} (--kind)` : "";
  return `${go} Go file(s), ${ts} TypeScript file(s)${notRead}. ${found}${only}.`;
}

function notes(title: string, items: string[]): string {
  if (!items.length) return "";
  return `<h2>${escapeHtml(title)}</h2><ul class="notes">${items.map((i) => `<li>${escapeHtml(i)}</li>`).join("")}</ul>`;
}

export function htmlReport(result: ExploreResult, htmlOptions: HtmlOptions = {}): string {
  const page = new Page(htmlOptions);
  const title = `crdgen explore ${result.roots.join(" ")}`;
  const kindOptions = options(
    kindsOf(result).map((k) => ({ value: k, label: k })),
    "all kinds",
  );
  const controllerOptions = options(
    result.controllers.map((c, i) => ({
      value: `c${i}`,
      label: `${c.name}${c.loc ? ` (${c.loc.file}:${c.loc.line})` : ""}`,
    })),
    "all controllers",
  );
  const body = result.controllers.length
    ? result.controllers.map((c, i) => page.controller(c, i)).join("\n")
    : `<p>No controller found: no workqueue, informer event handler or controller builder in these sources.</p>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${htmlStyle}</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p class="summary">${escapeHtml(summary(result))}</p>
<div class="filters">
<label>Kind <select id="kind">${kindOptions}</select></label>
<label>Controller <select id="controller">${controllerOptions}</select></label>
<span id="shown"></span>
</div>
<main>
${body}
</main>
${notes("Not linked", result.unlinked)}${notes("Warnings", result.warnings)}
<script>${htmlScript}</script>
</body>
</html>
`;
}
