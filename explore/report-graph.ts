// Pictures of the flows: Mermaid (renders in GitHub markdown) and Graphviz dot. One chain per controller:
// watched kind → handler → queue → worker loop → processing function. An informer and its handlers are drawn once
// however many controllers' queues they feed.
import { at } from "./loc.js";
import type { ExploreResult } from "./model.js";
import { workerName } from "./report-names.js";

/** Past this many nodes a picture is too large to read: the output says so and suggests `--kind`. */
export const readableNodes = 300;

interface Graph {
  nodes: { id: string; label: string[]; shape: "box" | "queue" | "kind" }[];
  edges: { from: string; to: string; label?: string }[];
}

function graphOf(result: ExploreResult): Graph {
  const g: Graph = { nodes: [], edges: [] };
  const ids = new Map<string, string>();
  const node = (key: string, label: string[], shape: Graph["nodes"][number]["shape"]) => {
    let id = ids.get(key);
    if (!id) {
      id = `n${ids.size}`;
      ids.set(key, id);
      g.nodes.push({ id, label, shape });
    }
    return id;
  };
  const edges = new Set<string>();
  const edge = (from: string, to: string, label?: string) => {
    const key = `${from}>${to}>${label ?? ""}`;
    if (edges.has(key)) return;
    edges.add(key);
    g.edges.push({ from, to, label });
  };
  result.controllers.forEach((c, ci) => {
    const q = node(`q${ci}`, [`queue ${c.queue.name ?? c.queue.ref ?? c.name}`, at(c.queue.loc)], "queue");
    for (const s of c.sources) {
      // The same kind watched from the same line is one shared informer; a kind known only at run time is not
      // known to be the same, so it stays with its controller.
      const shared = !s.kind.startsWith("(");
      const kindKey = `k${shared ? "" : ci}:${s.kind}:${s.via}:${at(s.loc)}`;
      const k = node(kindKey, [s.kind, s.via, at(s.loc)], "kind");
      for (const h of s.handlers) {
        const hn = node(
          `h:${kindKey}:${h.fn.name}:${at(h.fn.loc)}:${h.events.join(",")}`,
          [h.fn.name, h.events.join(","), at(h.fn.loc)],
          "box",
        );
        edge(k, hn);
        if (h.producers.length === 0) edge(hn, q);
        for (const p of h.producers) edge(hn, q, `${p.method} ${at(p.loc)}`);
      }
    }
    for (const w of c.workers) {
      const wn = node(`w${ci}:${w.loop.name}:${at(w.loop.loc)}`, [`worker ${workerName(w)}`, at(w.loop.loc)], "box");
      edge(q, wn, w.get ? `get ${at(w.get)}` : "get");
      for (const alt of w.processAlso ?? [])
        edge(wn, node(`p${ci}:${alt.name}:${at(alt.loc)}`, [`process ${alt.name}`, at(alt.loc)], "box"));
      if (w.process) {
        const pn = node(
          `p${ci}:${w.process.name}:${at(w.process.loc)}`,
          [`process ${w.process.name}`, at(w.process.loc)],
          "box",
        );
        edge(wn, pn);
        for (const chain of w.then) {
          let prev = pn;
          for (const hop of chain) {
            const hn = node(`t${ci}:${hop.name}:${at(hop.loc)}`, [hop.name, at(hop.loc)], "box");
            edge(prev, hn);
            prev = hn;
          }
        }
      }
    }
  });
  return g;
}

/** How many nodes and edges the pictures of `result` have. */
export function graphSize(result: ExploreResult): { nodes: number; edges: number } {
  const g = graphOf(result);
  return { nodes: g.nodes.length, edges: g.edges.length };
}

/** The note a picture over `readableNodes` nodes carries (and the CLI prints), or undefined. */
export function graphSizeNote(nodes: number): string | undefined {
  if (nodes <= readableNodes) return undefined;
  return `${nodes} nodes: more than ${readableNodes} is hard to read; crdgen explore --kind <Kind> draws one kind's flows`;
}

const mermaidText = (s: string) => s.replace(/"/g, "#quot;").replace(/</g, "#lt;").replace(/>/g, "#gt;");

export function mermaidReport(result: ExploreResult): string {
  const g = graphOf(result);
  const lines = ["flowchart LR"];
  const note = graphSizeNote(g.nodes.length);
  if (note) lines.push(`  %% ${note}`);
  for (const n of g.nodes) {
    const label = `"${n.label.map(mermaidText).join("<br/>")}"`;
    lines.push(`  ${n.id}${n.shape === "queue" ? `[[${label}]]` : n.shape === "kind" ? `([${label}])` : `[${label}]`}`);
  }
  for (const e of g.edges) lines.push(`  ${e.from} -->${e.label ? `|"${mermaidText(e.label)}"|` : ""} ${e.to}`);
  if (g.nodes.length === 0) lines.push(`  none["no controller found"]`);
  return `${lines.join("\n")}\n`;
}

const dotText = (s: string) => s.replace(/\\/g, "\\\\").replace(/"/g, '\\"');

export function dotReport(result: ExploreResult): string {
  const g = graphOf(result);
  const lines = ["digraph flows {", "  rankdir=LR;", '  node [fontname="monospace", fontsize=10];'];
  const note = graphSizeNote(g.nodes.length);
  if (note) lines.splice(1, 0, `  // ${note}`);
  for (const n of g.nodes) {
    const shape = n.shape === "queue" ? "box3d" : n.shape === "kind" ? "ellipse" : "box";
    lines.push(`  ${n.id} [shape=${shape}, label="${n.label.map(dotText).join("\\n")}"];`);
  }
  for (const e of g.edges) lines.push(`  ${e.from} -> ${e.to}${e.label ? ` [label="${dotText(e.label)}"]` : ""};`);
  if (g.nodes.length === 0) lines.push(`  none [shape=plaintext, label="no controller found"];`);
  lines.push("}");
  return `${lines.join("\n")}\n`;
}
