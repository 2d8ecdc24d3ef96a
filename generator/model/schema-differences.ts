// What differs between two versions of a kind, as their TypeScript types see it: the fields a conversion has to
// write by hand (conversion-gen's "requires manual conversion"). Descriptions and value constraints do not count:
// they change no type, so a plain copy converts them.
import type { Property, SchemaNode } from "./schema-node.js";

/** The root fields that the runtime sets on every conversion. */
const runtimeFields = new Set(["apiVersion", "kind", "metadata"]);

/**
 * One line per field whose type differs between version `a` (schema `from`) and version `b` (schema `to`), e.g.
 * `spec.count: only in v1alpha1` or `spec.size: integer in v1alpha1, string in v1`; empty when a copy is complete.
 */
export function schemaDifferences(from: SchemaNode, to: SchemaNode, a: string, b: string): string[] {
  const lines: string[] = [];
  const visit = (x: SchemaNode, y: SchemaNode, at: string): void => {
    const [shapeX, shapeY] = [shape(x), shape(y)];
    if (shapeX !== shapeY) {
      lines.push(`${at}: ${shapeX} in ${a}, ${shapeY} in ${b}`);
      return;
    }
    if (x.kind === "object" && y.kind === "object") {
      const compared = (props: Property[]) => (at === "" ? props.filter((p) => !runtimeFields.has(p.name)) : props);
      const [xProps, yProps] = [compared(x.properties), compared(y.properties)];
      const inY = new Map(yProps.map((p) => [p.name, p]));
      const inX = new Set(xProps.map((p) => p.name));
      for (const p of xProps) {
        const q = inY.get(p.name);
        const field = fieldPath(at, p.name);
        if (!q) lines.push(`${field}: only in ${a}`);
        else if (p.required !== q.required) lines.push(`${field}: required in ${p.required ? a : b} only`);
        else visit(p.node, q.node, field);
      }
      for (const q of yProps) if (!inX.has(q.name)) lines.push(`${fieldPath(at, q.name)}: only in ${b}`);
    } else if (x.kind === "array" && y.kind === "array") visit(x.items, y.items, `${at}[*]`);
    else if (x.kind === "map" && y.kind === "map") visit(x.values, y.values, `${at}[*]`);
  };
  visit(from, to, "");
  return lines;
}

/** A node's type without its fields, items or values (those are compared one by one); a union in full. */
function shape(node: SchemaNode): string {
  const nullable = node.nullable ? "nullable " : "";
  switch (node.kind) {
    case "enum":
      return `${nullable}one of ${node.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "object":
      return `${nullable}${node.embeddedResource ? "embedded resource" : "object"}${node.openIndexSignature ? " with any other keys" : ""}`;
    case "array":
      return `${nullable}list`;
    case "map":
      return `${nullable}map`;
    case "union":
      return `${nullable}union of (${node.members.map(deepShape).join(" | ")})`;
    default:
      return `${nullable}${node.kind}`;
  }
}

/** The whole type of a node, for the members of a union. */
function deepShape(node: SchemaNode): string {
  switch (node.kind) {
    case "object": {
      const fields = node.properties.map((p) => `${p.name}${p.required ? "" : "?"}: ${deepShape(p.node)}`);
      return `${shape(node)} {${fields.join("; ")}}`;
    }
    case "array":
      return `${shape(node)} of ${deepShape(node.items)}`;
    case "map":
      return `${shape(node)} of ${deepShape(node.values)}`;
    default:
      return shape(node);
  }
}

/** `spec.replicas`; a key that is not an identifier in brackets (`metadata.labels["app.kubernetes.io/name"]`). */
function fieldPath(at: string, name: string): string {
  if (!/^[A-Za-z_$][\w$]*$/.test(name)) return `${at}[${JSON.stringify(name)}]`;
  return at === "" ? name : `${at}.${name}`;
}
