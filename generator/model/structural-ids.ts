// Structural memoisation: gives every schema subtree an id so that subtrees written out the same (Argo's PodSpec,
// embedded many times; a selector repeated in every rule) are recognised in one pass and declared once.
import type { Constraints, SchemaNode } from "./schema-node.js";

export interface StructuralIds {
  /**
   * Equal for two nodes whose declarations would have the same body: same kind, properties (wire keys, required,
   * and each child's description, constraints and structure), enum values, items and map values. A node's own
   * description and constraints are left out: they belong to the place that uses it.
   */
  bodyOf(node: SchemaNode): number;
}

/** Hash-consing: each distinct signature (built from the children's ids, so linear in the tree) gets the next number. */
export function structuralIds(root: SchemaNode): StructuralIds {
  const idOfSignature = new Map<string, number>();
  const body = new Map<SchemaNode, number>();
  const intern = (signature: string): number => {
    let id = idOfSignature.get(signature);
    if (id === undefined) idOfSignature.set(signature, (id = idOfSignature.size));
    return id;
  };
  // Descriptions are long: each distinct one is hashed once and stands in a signature as its number.
  const idOfText = new Map<string, number>();
  const textId = (text: string | undefined): number => {
    if (text === undefined) return -1;
    let id = idOfText.get(text);
    if (id === undefined) idOfText.set(text, (id = idOfText.size));
    return id;
  };
  /** The body plus what the node says of itself: how it reads where it is used. */
  const whole = (node: SchemaNode): number =>
    intern(
      `${bodyId(node)} ${textId(node.description)} ${node.nullable} ${textId(constraintsSignature(node.constraints))}`,
    );
  const bodyId = (node: SchemaNode): number => {
    const known = body.get(node);
    if (known !== undefined) return known;
    let signature: string;
    switch (node.kind) {
      case "enum":
        signature = `enum ${JSON.stringify(node.values)}`;
        break;
      case "array":
        signature = `array ${whole(node.items)}`;
        break;
      case "map":
        signature = `map ${whole(node.values)}`;
        break;
      case "union":
        signature = `union ${node.members.map(whole).join(" ")}`;
        break;
      case "object":
        signature = `object ${node.openIndexSignature} ${node.embeddedResource} ${node.properties.map((p) => `${textId(p.name)} ${p.required} ${whole(p.node)}`).join(",")}`;
        break;
      default:
        signature = node.kind;
    }
    const id = intern(signature);
    body.set(node, id);
    return id;
  };
  bodyId(root);
  return { bodyOf: bodyId };
}

/** Constraints as a string with a fixed key order (the model fills them in schema order); most nodes have none. */
function constraintsSignature(c: Constraints): string | undefined {
  const keys = Object.keys(c);
  return keys.length === 0 ? undefined : JSON.stringify(keys.sort().map((k) => [k, c[k as keyof Constraints]]));
}

/**
 * Walks two nodes of equal body side by side and calls visit on each pair, the two nodes first. Their subtrees have
 * the same shape (that is what an equal body means), so the children pair up by position.
 */
export function pairSubtrees(
  copy: SchemaNode,
  original: SchemaNode,
  visit: (copy: SchemaNode, original: SchemaNode) => void,
): void {
  visit(copy, original);
  if (copy.kind === "array" && original.kind === "array") pairSubtrees(copy.items, original.items, visit);
  else if (copy.kind === "map" && original.kind === "map") pairSubtrees(copy.values, original.values, visit);
  else if (copy.kind === "union" && original.kind === "union")
    copy.members.forEach((m, i) => pairSubtrees(m, original.members[i]!, visit));
  else if (copy.kind === "object" && original.kind === "object")
    copy.properties.forEach((p, i) => pairSubtrees(p.node, original.properties[i]!.node, visit));
}
