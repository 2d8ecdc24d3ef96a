// The text report's first answer: per watched kind, one line with each of its flows in the order an event travels,
// `Widget: UpdateFunc (file:line) → c.refreshQueue (AddRateLimited) → (*Controller).syncWidget (file:line); → ...`.
import { kindsOf } from "./by-kind.js";
import type { Loc } from "./facts.js";
import type { Controller, ExploreResult, Handler, Place, Worker } from "./model.js";
import { isAnonymous } from "./report-names.js";

const where = (l?: Loc) => (l ? `(${l.file}:${l.line})` : "(library)");
const placed = (p: Place) => `${p.name} ${where(p.loc)}`;

/** client-go's names for the informer events; a raw watch and a controller-runtime map function keep theirs. */
const eventNames: Record<string, string> = { add: "AddFunc", update: "UpdateFunc", delete: "DeleteFunc" };

/** An arrow function is named by the property it is written in (`addFunc`), a Go func literal by its events. */
function handlerLabel(h: Handler): string {
  const role = h.fn.name.endsWith(" (arrow)") ? h.fn.name.slice(0, -" (arrow)".length) : undefined;
  if (role) return `${role} ${where(h.fn.loc)}`;
  const events = h.events.map((e) => eventNames[e] ?? e).join("/");
  return isAnonymous(h.fn.name) ? `${events} ${where(h.fn.loc)}` : `${events} ${placed(h.fn)}`;
}

/** The queue as the code names it; the controller's name is added when two controllers' queues read the same. */
function queueLabels(controllers: Controller[]): Map<Controller, string> {
  const base = new Map(controllers.map((c) => [c, c.queue.name ? `"${c.queue.name}"` : (c.queue.ref ?? c.name)]));
  const seen = new Map<string, number>();
  for (const label of base.values()) seen.set(label, (seen.get(label) ?? 0) + 1);
  return new Map(
    [...base].map(([c, label]) => [
      c,
      (seen.get(label) ?? 0) > 1 && label !== c.name ? `${label} of ${c.name}` : label,
    ]),
  );
}

/** The processing function, the others the same call may run, and the hooks it hands the object on to. */
function workerLabel(w: Worker): string {
  const process = w.process ? placed(w.process) : "(processing function not found)";
  const also = (w.processAlso ?? []).map((p) => ` or ${placed(p)}`).join("");
  const hooks = w.then.flatMap((chain) => {
    const last = chain.at(-1);
    return last ? [placed({ ...last, name: last.name.split(" → ").at(-1) ?? last.name })] : [];
  });
  return `${process}${also}${hooks.length ? ` → ${hooks.join(" / ")}` : ""}`;
}

export function kindSummary(result: ExploreResult): string[] {
  const queues = queueLabels(result.controllers);
  const lines: string[] = [];
  for (const kind of kindsOf(result)) {
    // Handlers that feed the same queue the same way, and so reach the same workers, share one segment.
    const segments = new Map<string, string[]>();
    for (const c of result.controllers) {
      const workers = c.workers.length ? c.workers.map(workerLabel).join(" | ") : "(no worker found)";
      for (const s of c.sources.filter((x) => x.kind === kind)) {
        for (const h of s.handlers) {
          const methods = [...new Set(h.producers.map((p) => p.method))].join("/");
          const downstream = `${queues.get(c)}${methods ? ` (${methods})` : ""} → ${workers}`;
          const handlers = segments.get(downstream) ?? [];
          const label = handlerLabel(h);
          if (!handlers.includes(label)) handlers.push(label);
          segments.set(downstream, handlers);
        }
      }
    }
    // A handler that fans out to several queues is named once: `UpdateFunc (…) → queueA …; → queueB …`.
    let previous = "";
    const parts = [...segments].map(([downstream, handlers]) => {
      const from = handlers.join(", ");
      const part = from === previous ? `→ ${downstream}` : `${from} → ${downstream}`;
      previous = from;
      return part;
    });
    lines.push(`  ${kind}: ${parts.length ? parts.join("; ") : "(no handler found)"}`);
  }
  return lines;
}
