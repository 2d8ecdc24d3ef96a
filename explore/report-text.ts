// The default report: one line per watched kind, then one block per controller, in the order an event travels
// (watch → handler → queue → worker).
import type { Loc } from "./facts.js";
import { type Controller, type ExploreResult, type Place, notReadSummary, unsupportedLanguages } from "./model.js";
import { kindSummary } from "./report-kind-summary.js";

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
    if (w.done.length) lines.push(`    done       ${w.done.map(at).join(", ")}`);
    if (w.forget.length) lines.push(`    forget     ${w.forget.map(at).join(", ")}`);
    lines.push(...requeueLines(w));
  }
  return lines;
}

/**
 * The watches and their handlers. Watches handled alike (the same handler lines, as an operator's seven informers
 * sharing one event handler, or closures of one shape calling the same helper) show the handlers once, under the
 * first; the others name it (and their own handler functions, where those differ).
 */
function watchLines(c: Controller): string[] {
  const lines: string[] = [];
  const handledAs = new Map<string, { name: string; exact: string }>();
  for (const s of c.sources) {
    const where = s.loc ? `  ${at(s.loc)}` : "";
    const or = (s.alternatives ?? []).map((a) => ` or ${a.via}${a.loc ? `  ${at(a.loc)}` : ""}`).join("");
    const handling = handlerLines(s.handlers, true);
    const exact = handling.join("\n");
    const shape = handlerLines(s.handlers, false).join("\n");
    const first = handling.length > 1 ? handledAs.get(shape) : undefined;
    const own = first && first.exact !== exact ? `, by ${locList(s.handlers.map((h) => h.fn.loc))}` : "";
    const added = s.registeredAt ? `handlers added at ${at(s.registeredAt)}` : "";
    const notes = [added, first ? `handled as ${first.name}${own}` : ""].filter(Boolean).join("; ");
    lines.push(`  watches    ${s.kind} via ${s.via}${where}${or}${notes ? ` (${notes})` : ""}`);
    if (first) continue;
    const twice = c.sources.filter((o) => o.kind === s.kind).length > 1;
    if (!handledAs.has(shape))
      handledAs.set(shape, { name: twice ? `${s.kind} ${at(s.registeredAt ?? s.loc)}` : s.kind, exact });
    lines.push(...handling);
  }
  return lines;
}

/** Places, the file named once for a run of places in it: `a.go:3, :9, b.go:4`. */
function locList(locs: (Loc | undefined)[]): string {
  let file: string | undefined;
  return locs
    .map((l) => {
      const text = l && l.file === file ? `:${l.line}` : at(l);
      file = l?.file;
      return text;
    })
    .join(", ");
}

/**
 * A watch's handler lines: each group of handlers putting the same keys on the queue, with its producers; without
 * `locs`, the handlers by name only (their shape).
 */
function handlerLines(handlers: Controller["sources"][number]["handlers"], locs: boolean): string[] {
  const lines: string[] = [];
  const fn = (p: Place, sep: string) => (locs ? `${p.name}${sep}${at(p.loc)}` : p.name);
  for (const group of sameProducers(handlers)) {
    const [h, ...alike] = group;
    const events = [...new Set(group.flatMap((g) => g.events))].sort((a, b) => eventRank(a) - eventRank(b)).join(",");
    const others = alike.map((g) => `, ${fn(g.fn, " ")}`).join("");
    lines.push(`    ${events.padEnd(16)} ${fn(h!.fn, "  ")}${others}`);
    for (const w of h!.wrappedBy ?? []) lines.push(`      wrapped by  ${place(w)}`);
    for (const p of h!.producers) {
      const via = p.via.length ? `  via ${p.via.map((v) => `${v.name} ${at(v.loc)}`).join(" → ")}` : "";
      lines.push(`      ${p.text}  ${at(p.loc)}${via}`);
    }
  }
  return lines;
}

/**
 * A watch's handlers that put the same keys on the queue (add, update and delete of one handler object) are one line,
 * with the first one's producers (the JSON keeps each handler's own path); a wrapped handler stays on its own.
 */
function sameProducers(handlers: Controller["sources"][number]["handlers"]): (typeof handlers)[] {
  const groups = new Map<string, typeof handlers>();
  handlers.forEach((h, i) => {
    const producers = h.producers.map((p) => at(p.loc)).join(" ");
    const key = h.wrappedBy?.length || !producers ? `#${i}` : producers;
    groups.set(key, [...(groups.get(key) ?? []), h]);
  });
  return [...groups.values()];
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

/** Events in the order an object lives them (others after, as found). */
function eventRank(event: string): number {
  const i = ["add", "update", "delete"].indexOf(event);
  return i < 0 ? 3 : i;
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
