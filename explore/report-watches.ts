// The text report's watch lines: each watched kind with its informer and handlers, in as few lines as the operator
// allows. Watches handled alike (one operator's twenty informers each given closures of the same shape) are one line
// naming the kinds, then their places, wrapped; every place stays in the report.
import type { Loc } from "./facts.js";
import type { Controller, Handler, Place, Source } from "./model.js";

/** The text report's width for the lines written here (the places of watches handled alike). */
const WIDTH = 120;
const at = (l?: Loc) => (l ? `${l.file}:${l.line}` : "(library)");
const place = (p: Place) => `${p.name}  ${at(p.loc)}`;

/** A watch as shown: a source and the other informers its registration may get, one chosen at run time. */
interface Watch {
  source: Source;
  alternatives: { via: string; loc?: Loc }[];
}

/** A watch handled as an earlier one: its own handler functions' places when they are not that one's. */
interface Alike {
  watch: Watch;
  own: (Loc | undefined)[];
}

/** The watch others are handled as: its name in the report, its handler lines, where its handlers were added. */
interface First {
  name: string;
  exact: string;
  registeredAt?: Loc;
}

type Slot = { lines: string[] } | { as: First; alike: Alike[] };

/**
 * The watches and their handlers. Watches handled alike (the same handler lines, as an operator's seven informers
 * sharing one event handler, or closures of one shape calling the same helper) show the handlers once, under the
 * first; the others name it, one line each, or when several are made the same way one line for all of them and
 * their places.
 */
export function watchLines(c: Controller): string[] {
  const watches = withAlternatives(c.sources);
  const handledAs = new Map<string, First>();
  const groups = new Map<string, Alike[]>();
  const slots: Slot[] = [];
  for (const w of watches) {
    const s = w.source;
    const handling = handlerLines(s.handlers, true);
    const exact = handling.join("\n");
    const shape = handlerLines(s.handlers, false).join("\n");
    const first = handling.length > 1 ? handledAs.get(shape) : undefined;
    if (first) {
      const own = first.exact !== exact ? s.handlers.map((h) => h.fn.loc) : [];
      const group = groups.get(first.name);
      if (group) group.push({ watch: w, own });
      else {
        const alike = [{ watch: w, own }];
        groups.set(first.name, alike);
        slots.push({ as: first, alike });
      }
      continue;
    }
    const twice = watches.filter((o) => o.source.kind === s.kind).length > 1;
    if (!handledAs.has(shape))
      handledAs.set(shape, {
        name: twice ? `${s.kind} ${at(s.registeredAt ?? s.loc)}` : s.kind,
        exact,
        registeredAt: s.registeredAt,
      });
    slots.push({ lines: [watchLine(w, ""), ...handling] });
  }
  return slots.flatMap((slot) => ("lines" in slot ? slot.lines : alikeLines(slot.as, slot.alike)));
}

/**
 * Sources of one kind registered at one place with the same handlers are one watch whose informer is chosen at run
 * time (`if enabled { informers.Route() } else { informers.FakeRoute() }` before the registration).
 */
function withAlternatives(sources: Source[]): Watch[] {
  const watches: Watch[] = [];
  const byRegistration = new Map<string, Watch>();
  for (const s of sources) {
    const key = s.registeredAt && JSON.stringify([s.kind, at(s.registeredAt), handlerLines(s.handlers, true)]);
    const same = key ? byRegistration.get(key) : undefined;
    if (same) {
      same.alternatives.push({ via: s.via, loc: s.loc }, ...(s.alternatives ?? []));
      continue;
    }
    const watch = { source: s, alternatives: [...(s.alternatives ?? [])] };
    if (key) byRegistration.set(key, watch);
    watches.push(watch);
  }
  return watches;
}

/** `watches    Kind via x.Informer()  file:line or y  file:line (handlers added at …; <notes>)`. */
function watchLine(w: Watch, note: string): string {
  const s = w.source;
  const where = s.loc ? `  ${at(s.loc)}` : "";
  const or = w.alternatives.map((a) => ` or ${a.via}${a.loc ? `  ${at(a.loc)}` : ""}`).join("");
  const added = s.registeredAt ? `handlers added at ${at(s.registeredAt)}` : "";
  const notes = [added, note].filter(Boolean).join("; ");
  return `  watches    ${s.kind} via ${s.via}${where}${or}${notes ? ` (${notes})` : ""}`;
}

/** Fewer watches handled alike than this keep a line each (folding two saves no line). */
const FOLDED_FROM = 3;

/**
 * Watches handled as `as`: a few keep a line each; more are one line saying what they are handled as, then each kind
 * with its informer's place (and its run-time alternatives'), its handlers' registration when that differs between
 * them, and its own handler functions (`by`). As with files, how an informer is made (`via`) is named once for a run
 * of places made that way, the most common way first.
 */
function alikeLines(as: First, alike: Alike[]): string[] {
  if (alike.length < FOLDED_FROM) {
    return alike.map(({ watch, own }) =>
      watchLine(watch, `handled as ${as.name}${own.length ? `, by ${locList(own)}` : ""}`),
    );
  }
  const made = (w: Watch) => [{ via: w.source.via, loc: w.source.loc }, ...w.alternatives];
  const ways = countOf(alike.flatMap((a) => made(a.watch).map((m) => m.via)));
  const [via] = [...ways].sort((a, b) => b[1] - a[1])[0]!;
  const registrations = new Set(alike.map((a) => at(a.watch.source.registeredAt)));
  const common = registrations.size === 1 ? alike[0]!.watch.source.registeredAt : undefined;
  const [informers, added, by] = [filesOnce(), filesOnce(), filesOnce()];
  const viaAt: string[] = [via];
  const entries = alike.map(({ watch, own }) => {
    const places = made(watch).sort((a, b) => (ways.get(b.via) ?? 0) - (ways.get(a.via) ?? 0));
    const where = places.map((m, i) => {
      const named = viaAt[i] === m.via ? "" : `via ${m.via} `;
      viaAt[i] = m.via;
      return m.loc ? `${named}${informers(m.loc)}` : named.trimEnd();
    });
    const registered = !common && watch.source.registeredAt ? ` added at ${added(watch.source.registeredAt)}` : "";
    const shown = where.filter(Boolean).join(" or ");
    return `${watch.source.kind}${shown ? ` ${shown}` : ""}${registered}${own.length ? ` by ${span(own, by)}` : ""}`;
  });
  const where = !common ? "" : at(common) === at(as.registeredAt) ? " at the same place" : ` at ${at(common)}`;
  // "24 kinds" when each is one known kind; "26 watches" when a kind repeats or is only known at run time.
  const kinds = new Set(alike.map((a) => a.watch.source.kind));
  const known = [...kinds].every((k) => /^\w/.test(k)) && kinds.size === alike.length;
  const addedNote = common ? ` (handlers added${where})` : "";
  const count = known ? `${kinds.size} kinds` : `${alike.length} watches`;
  const header = `${count} via ${via}, handled as ${as.name}${addedNote}:`;
  return [...wrap([header], "  watches    ", "", "             "), ...wrap(entries, "      ", "; ")];
}

/** How often each value is given. */
function countOf(values: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return counts;
}

/** A writer of places that names a file only when it differs from the previous place it wrote. */
export function filesOnce(): (l: Loc | undefined) => string {
  let file: string | undefined;
  return (l) => {
    const text = l && l.file === file ? `:${l.line}` : at(l);
    file = l?.file;
    return text;
  };
}

/** Places, the file named once for a run of places in it: `a.go:3, :9, b.go:4`. */
export function locList(locs: (Loc | undefined)[]): string {
  return locs.map(filesOnce()).join(", ");
}

/** Lines a closure group's handlers span at most to be written as one range (`file:230–236`). */
const SPAN_LINES = 20;

/** A watch's own handler functions: the lines they span when they sit close together in one file, else each place. */
function span(locs: (Loc | undefined)[], write: (l: Loc | undefined) => string): string {
  const placed = locs.filter((l): l is Loc => l !== undefined);
  const lines = placed.map((l) => l.line);
  const [low, high] = [Math.min(...lines), Math.max(...lines)];
  const oneFile = placed.length === locs.length && placed.every((l) => l.file === placed[0]!.file);
  if (!oneFile || placed.length < 2 || high - low > SPAN_LINES) return locs.map(write).join(", ");
  return `${write({ file: placed[0]!.file, line: low })}–${high}`;
}

/**
 * Items joined by `sep` and flowed into lines of at most WIDTH characters, the first line starting with `indent` and
 * the others with `then`. A line breaks between words, never between an item's first two (a kind and its place).
 */
function wrap(items: string[], indent: string, sep: string, then = indent): string[] {
  const lines: string[] = [];
  let line = "";
  const add = (text: string, between: string) => {
    if (line && line.length + between.length + text.length > WIDTH) {
      lines.push(`${line}${between.trimEnd()}`);
      line = "";
    }
    line = line ? `${line}${between}${text}` : `${lines.length ? then : indent}${text}`;
  };
  for (const item of items) {
    const [first = "", second, ...rest] = item.split(" ");
    [second === undefined ? first : `${first} ${second}`, ...rest].forEach((word, i) => add(word, i ? " " : sep));
  }
  if (line) lines.push(line);
  return lines;
}

/**
 * A watch's handler lines: each group of handlers putting the same keys on the queue, with its producers; without
 * `locs`, the handlers by name only (their shape). Producers made by the same call text through the same helpers are
 * one line with their places.
 */
function handlerLines(handlers: Handler[], locs: boolean): string[] {
  const lines: string[] = [];
  const fn = (p: Place, sep: string) => (locs ? `${p.name}${sep}${at(p.loc)}` : p.name);
  for (const group of sameProducers(handlers)) {
    const [h, ...alike] = group;
    const events = [...new Set(group.flatMap((g) => g.events))].sort((a, b) => eventRank(a) - eventRank(b)).join(",");
    const others = alike.map((g) => `, ${fn(g.fn, " ")}`).join("");
    lines.push(`    ${events.padEnd(16)} ${fn(h!.fn, "  ")}${others}`);
    for (const w of h!.wrappedBy ?? []) lines.push(`      wrapped by  ${place(w)}`);
    const byPath = new Map<string, Loc[]>();
    for (const p of h!.producers) {
      const via = p.via.length ? `  via ${p.via.map((v) => `${v.name} ${at(v.loc)}`).join(" → ")}` : "";
      const key = JSON.stringify([p.text, via]);
      byPath.set(key, [...(byPath.get(key) ?? []), p.loc]);
    }
    for (const [key, places] of byPath) {
      const [text, via] = JSON.parse(key) as [string, string];
      lines.push(`      ${text}  ${locList(places)}${via}`);
    }
  }
  return lines;
}

/**
 * A watch's handlers that put the same keys on the queue (add, update and delete of one handler object) are one line,
 * with the first one's producers (the JSON keeps each handler's own path); a wrapped handler stays on its own.
 */
function sameProducers(handlers: Handler[]): Handler[][] {
  const groups = new Map<string, Handler[]>();
  handlers.forEach((h, i) => {
    const producers = h.producers.map((p) => at(p.loc)).join(" ");
    const key = h.wrappedBy?.length || !producers ? `#${i}` : producers;
    groups.set(key, [...(groups.get(key) ?? []), h]);
  });
  return [...groups.values()];
}

/** Events in the order an object lives them (others after, as found). */
function eventRank(event: string): number {
  const i = ["add", "update", "delete"].indexOf(event);
  return i < 0 ? 3 : i;
}
