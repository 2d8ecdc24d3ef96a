// YAML aliases let a small file stand for a huge document (a "billion laughs", or one long string repeated). Before a
// document becomes JavaScript, its aliases are counted (scalars' too) and its expanded size measured, in one pass over
// its nodes that sizes each node once, so the check itself stays linear in the file.
import { isAlias, isCollection, isNode, isPair, isScalar, type Node } from "yaml";

/** Aliases one document may hold: real CRDs use none, and resolving each costs the yaml package a pass over the rest. */
export const maxAliases = 1000;

const mebibyte = 1024 * 1024;

/**
 * The most a file may expand to: 10 times the file, or 1 MB when that is more. The 220 CRDs of the corpus expand to
 * at most 0.88 times their file (no alias enlarges them; the JSON is smaller than the indented YAML), so this leaves
 * an 11-fold margin, while a small file can no longer stand for tens of megabytes of output.
 */
export function expansionLimit(fileLength: number): number {
  return Math.max(mebibyte, 10 * fileLength);
}

export type Expansion =
  | {
      size: number;
      /** Anchored nodes no alias refers to (see dropUnusedAnchors). */
      unused: Node[];
    }
  | { problem: string };

/**
 * The size of a parsed document's contents as toJS would expand them (about their JSON length), or the problem when
 * they hold more than maxAliases aliases, expand beyond budget, or hold an alias of a node that contains it.
 */
export function measureExpansion(contents: unknown, budget: number, limit: number): Expansion {
  const anchors = new Map<string, Node>();
  const anchored: Node[] = [];
  const used = new Set<Node>();
  const sizes = new Map<unknown, number>();
  const open = new Set<unknown>();
  const stack: Array<{ node: unknown; entered: boolean }> = [{ node: contents, entered: false }];
  let aliases = 0;
  let largest = { name: "", size: -1 };
  while (stack.length) {
    const { node, entered } = stack.pop()!;
    if (typeof node !== "object" || node === null) continue;
    if (entered) {
      open.delete(node);
      const size = childrenOf(node).reduce<number>((sum, child) => sum + (sizes.get(child) ?? 1), isPair(node) ? 1 : 2);
      if (size > budget)
        return {
          problem: `the YAML's aliases${largest.name ? ` (such as *${largest.name})` : ""} expand it to more than ${megabytes(limit)}, the most crdgen reads from this file (10 times the file's size, or 1 MB if that is more)`,
        };
      sizes.set(node, size);
    } else if (isAlias(node)) {
      if (++aliases > maxAliases)
        return {
          problem: `the YAML holds more than ${maxAliases} aliases in one document (aliases of scalars count too), the most crdgen reads; write the values out`,
        };
      const target = anchors.get(node.source);
      if (target !== undefined && open.has(target))
        return { problem: `the YAML alias *${node.source} refers to a node that contains it` };
      // The anchor (before the alias in document order) is sized already; an unknown one is toJS's to report.
      if (target !== undefined) used.add(target);
      const size = target === undefined ? 1 : (sizes.get(target) ?? 1);
      if (size > largest.size) largest = { name: node.source, size };
      sizes.set(node, size);
    } else {
      // Anchors bind in document order, a later one of the same name taking over, as the yaml package resolves them.
      if (isNode(node) && node.anchor) {
        anchors.set(node.anchor, node);
        anchored.push(node);
      }
      const children = childrenOf(node);
      if (children.length === 0) {
        sizes.set(node, leafSize(node));
        continue;
      }
      open.add(node);
      stack.push({ node, entered: true });
      for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i], entered: false });
    }
  }
  return { size: sizes.get(contents) ?? 1, unused: anchored.filter((node) => !used.has(node)) };
}

/**
 * Removes the anchors no alias uses. The yaml package resolves each alias by a pass over every anchored node and
 * alias before it, so thousands of unused anchors would make even a thousand aliases slow; without them the pass is
 * short, and no alias resolves differently (each still finds the same last anchor of its name before it).
 */
export function dropUnusedAnchors(unused: Node[]): void {
  for (const node of unused) node.anchor = undefined;
}

function childrenOf(node: object): unknown[] {
  if (isPair(node)) return [node.key, node.value];
  if (isCollection(node)) return node.items;
  return [];
}

function leafSize(node: object): number {
  if (!isScalar(node)) return 2; // an empty mapping or sequence
  const value = node.value;
  return 1 + (typeof value === "string" ? value.length : String(value).length);
}

function megabytes(bytes: number): string {
  const size = bytes / mebibyte;
  return `${size < 10 ? Number(size.toFixed(1)) : Math.round(size)} MB`;
}
