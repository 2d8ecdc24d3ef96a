// The default report: one line per watched kind, then one block per controller, in the order an event travels
// (watch → handler → queue → worker).
import type { Loc } from "./facts.js";
import { type Controller, type ExploreResult, type Place, notReadSummary, unsupportedLanguages } from "./model.js";
import { kindSummary } from "./report-kind-summary.js";
import { filesOnce, locList, watchLines } from "./report-watches.js";

const at = (l?: Loc) => (l ? `${l.file}:${l.line}` : "(library)");
const place = (p: Place) => `${p.name}  ${at(p.loc)}`;

export function textReport(result: ExploreResult): string {
  const lines: string[] = [];
  const { go, ts } = result.files;
  const handlers = result.controllers.reduce((n, c) => n + c.sources.reduce((m, s) => m + s.handlers.length, 0), 0);
  const workers = result.controllers.reduce((n, c) => n + c.workers.length, 0);
  const kinds = new Set(result.controllers.flatMap((c) => c.sources.map((s) => s.kind)));
  const notRead = result.notRead?.length ? `; not read: ${notReadSummary(result.notRead)}` : "";
  const goFrontEnd = result.goFrontEnd ? `; ${result.goFrontEnd}` : "";
  lines.push(
    `crdgen explore ${result.roots.join(" ")}: ${go} Go file(s), ${ts} TypeScript file(s)${notRead}${goFrontEnd}`,
  );
  const unsupported = unsupportedLanguages(result);
  if (unsupported) lines.push(`Nothing read: ${unsupported}.`);
  else if (result.controllers.length === 0) {
    lines.push(
      "No controller found: no workqueue, informer event handler or controller-runtime builder in these sources.",
    );
  } else {
    lines.push(
      `${result.controllers.length} controller(s), ${kinds.size} watched kind(s), ${handlers} handler(s), ${workers} worker(s)`,
    );
  }
  if (result.onlyKind) {
    const { kind, kindsFound } = result.onlyKind;
    lines.push(`only the flows of ${kind} (--kind), one of ${kindsFound} watched kind(s)`);
  }
  if (result.controllers.length)
    lines.push("", "By kind (handler → queue (how keys are added) → processing function):");
  lines.push(...kindSummary(result));
  for (const c of result.controllers) lines.push("", ...controllerBlock(c));
  if (result.unlinked.length) {
    lines.push("", "Not linked:");
    for (const u of result.unlinked) lines.push(`  - ${u}`);
  }
  if (result.warnings.length) {
    lines.push("", "Warnings:");
    for (const w of result.warnings) lines.push(`  - ${w}`);
  }
  return `${lines.join("\n")}\n`;
}

function controllerBlock(c: Controller): string[] {
  const q = c.queue;
  const lines = [`controller ${c.name}`];
  const name = [q.ref, q.name ? `"${q.name}"` : undefined].filter(Boolean).join(" ");
  lines.push(`  queue      ${name ? `${name}  ` : ""}${at(q.loc)}`);
  lines.push(`    type       ${q.type}`);
  lines.push(`    limiter    ${q.rateLimiter}`);
  lines.push(...watchLines(c));
  const shown = new Map<string, number>();
  for (const w of c.workers) {
    // One controller's workers alike (a shared loop run per object of its type) are one block, counted.
    const key = JSON.stringify(w);
    const seen = shown.get(key);
    if (seen !== undefined) {
      lines[seen] = lines[seen]!.replace(/(?: ×\d+)?$/, (m) => ` ×${(Number(m.slice(2)) || 1) + 1}`);
      continue;
    }
    shown.set(key, lines.length);
    lines.push(`  worker     ${place(w.loop)}`);
    if (w.get)
      lines.push(`    get        ${w.getText ?? "Get"}${w.getter ? ` in ${w.getter.name}` : ""}  ${at(w.get)}`);
    lines.push(`    process    ${w.process ? place(w.process) : "(not found)"}`);
    for (const p of w.processAlso ?? []) lines.push(`    or         ${place(p)}`);
    lines.push(...alsoCalls(w.alsoCalled ?? []));
    for (const chain of w.then) lines.push(`      then     ${chain.map(place).join(" → ")}`);
    lines.push(...doneLines(w));
    lines.push(...requeueLines(w));
  }
  return lines;
}

/** Where a worker marks its item done and forgets its retries: one line, the file named once for a run of places. */
function doneLines(w: Controller["workers"][number]): string[] {
  const write = filesOnce();
  const [done, forget] = [w.done.map(write).join(", "), w.forget.map(write).join(", ")];
  if (!done) return forget ? [`    forget     ${forget}`] : [];
  return [`    done       ${done}${forget ? `; forget ${forget}` : ""}`];
}

/**
 * A worker's requeues, one line per method, and its enqueues, one line per call text and the places it is made from
 * (the queues it reaches listed).
 */
function requeueLines(w: Controller["workers"][number]): string[] {
  const byMethod = new Map<string, Loc[]>();
  for (const r of w.requeues) byMethod.set(r.method, [...(byMethod.get(r.method) ?? []), r.loc]);
  const lines = [...byMethod].map(([method, locs]) => `    requeue    ${method}  ${locList(locs)}`);
  const byQueue = new Map<string, { text: string; queue?: Loc; locs: Loc[] }>();
  for (const e of w.enqueues ?? []) {
    const key = `${e.text} ${at(e.queue)}`;
    const seen = byQueue.get(key) ?? { text: e.text, queue: e.queue, locs: [] };
    byQueue.set(key, { ...seen, locs: [...seen.locs, e.loc] });
  }
  const byPlaces = new Map<string, string[]>();
  for (const e of byQueue.values()) {
    const key = `${e.text}  ${locList(e.locs)}`;
    byPlaces.set(key, [...(byPlaces.get(key) ?? []), at(e.queue)]);
  }
  for (const [made, queues] of byPlaces)
    lines.push(`    enqueue    ${made}  → ${queues.length > 1 ? "queues" : "queue"} ${queues.join(", ")}`);
  return lines;
}

/** At most this many `also calls` lines per worker: a function doing the work itself calls many (the JSON has all). */
const ALSO_CALLS_SHOWN = 4;

function alsoCalls(calls: Place[]): string[] {
  const shown = calls.length > ALSO_CALLS_SHOWN + 1 ? calls.slice(0, ALSO_CALLS_SHOWN) : calls;
  const lines = shown.map((p) => `    also calls ${place(p)}`);
  if (shown.length < calls.length)
    lines.push(`    also calls ... ${calls.length - shown.length} more (--json lists them)`);
  return lines;
}
