// Go expressions lowered to slots: names, selectors, conversions, function literals and composite literals.
import type { Node } from "web-tree-sitter";
import type { Slot } from "../facts.js";
import { GoCallReader } from "./calls.js";
import { isExpression } from "./syntax.js";

export abstract class GoExpressionReader extends GoCallReader {
  protected override expr(node: Node): Slot | undefined {
    switch (node.type) {
      case "identifier":
        for (const c of this.collectors) c.add(node.text);
        return this.slotOfName(node.text);
      case "type_conversion_expression": {
        const call = this.genericCall(node);
        if (call) return call;
        const inner = node.childForFieldName("operand");
        return inner ? this.expr(inner) : undefined;
      }
      case "parenthesized_expression":
      case "unary_expression":
      case "type_assertion_expression": {
        const inner = node.childForFieldName("operand") ?? node.namedChildren[0];
        const slot = inner ? this.expr(inner) : undefined;
        // Nodes are new objects at each look-up: the operand is known by its id.
        for (const c of node.namedChildren) if (c.id !== inner?.id && isExpression(c.type)) this.expr(c);
        return slot;
      }
      case "selector_expression": {
        const operand = node.childForFieldName("operand")!;
        const field = node.childForFieldName("field")!.text;
        if (operand.type === "identifier" && !this.isLocalName(operand.text) && this.imports.has(operand.text)) {
          const imp = this.imports.get(operand.text)!;
          return imp.pkgKey ? `${imp.pkgKey}.${field}` : undefined;
        }
        const base = this.expr(operand);
        if (!base) return undefined;
        const t = this.temp();
        this.facts.constraints.push({ c: "load", dst: t, base, field });
        return t;
      }
      case "call_expression":
        return this.newOfType(node) ?? this.call(node);
      case "func_literal":
        return this.funcLiteral(node);
      case "composite_literal":
        return this.compositeLiteral(node);
      default:
        for (const c of node.namedChildren) {
          if (isExpression(c.type)) this.expr(c);
          else if (c.type === "literal_value") this.literalValue(c, undefined);
        }
        return undefined;
    }
  }

  /** `new(corev1.Secret)`: a pointer to a value of that type, as `&corev1.Secret{}` is (its kind, its object). */
  private newOfType(node: Node): Slot | undefined {
    if (node.childForFieldName("function")?.text !== "new") return undefined;
    const type = node.childForFieldName("arguments")?.namedChildren[0];
    const kind = type ? kindOfType(type) : undefined;
    if (!type || !kind || !/type/.test(type.type)) return undefined;
    const t = this.temp();
    this.facts.constraints.push({ c: "alloc", dst: t, v: `k|${kind}` });
    const typeKey = this.typeKeyOf(type);
    if (typeKey) this.facts.constraints.push({ c: "alloc", dst: t, v: `o|${typeKey}` });
    return t;
  }

  protected funcLiteral(node: Node, role?: string): Slot {
    const fn = this.newFn(node, "func literal", undefined, role);
    this.withScope(fn, (scope) => {
      this.readParams(node.childForFieldName("parameters"), scope);
      this.readResults(node.childForFieldName("result"), scope);
      const body = node.childForFieldName("body");
      if (body) this.visit(body);
    });
    const t = this.temp();
    this.facts.constraints.push({ c: "alloc", dst: t, v: `f|${fn.id}` });
    return t;
  }

  /** The key of a named type as written (`Controller`, `pkg.Type` from a package of the tree), or undefined. */
  protected typeKeyOf(typeNode: Node | null): string | undefined {
    if (!typeNode) return undefined;
    if (typeNode.type === "type_identifier") return `${this.pkgKey}.${typeNode.text}`;
    if (typeNode.type === "qualified_type") {
      const pkg = this.imports.get(typeNode.childForFieldName("package")?.text ?? "");
      const name = typeNode.childForFieldName("name")?.text;
      return pkg?.pkgKey && name ? `${pkg.pkgKey}.${name}` : undefined;
    }
    if (typeNode.type === "generic_type") return this.typeKeyOf(typeNode.childForFieldName("type"));
    return undefined;
  }

  protected compositeLiteral(node: Node): Slot {
    const typeKey = this.typeKeyOf(node.childForFieldName("type"));
    const t = this.temp();
    this.facts.constraints.push({
      c: "alloc",
      dst: t,
      v: typeKey
        ? `o|${typeKey}`
        : `l|${this.file}:${node.startPosition.row + 1}:${node.startPosition.column + 1}#${this.lits++}`,
    });
    // The object made here, apart from every other value of its type (`l|<type>@@<place>`): its fields hold what is
    // stored into it, so controllers sharing one struct type keep their own queues and functions (link/instances.ts).
    if (typeKey)
      this.facts.constraints.push({
        c: "alloc",
        dst: t,
        v: `l|${typeKey}@@${this.file}:${node.startPosition.row + 1}:${node.startPosition.column + 1}`,
      });
    // `&corev1.Secret{}`: what controller-runtime's For, Owns and Watches are given; its kind travels as a value, so a
    // kind passed through a local, a helper's parameter or a slice ranged over is still known where it is watched.
    const written = node.parent?.type === "unary_expression" ? kindOfType(node.childForFieldName("type")) : undefined;
    // (metadata only: `&metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{Kind: "Secret"}}` watches Secrets)
    const kind = written === "PartialObjectMetadata" ? (typeMetaKind(node) ?? written) : written;
    if (kind) this.facts.constraints.push({ c: "alloc", dst: t, v: `k|${kind}` });
    const body = node.childForFieldName("body");
    // []client.Object{&a, &b}: ranging over the slice yields its elements.
    const type = node.childForFieldName("type")?.type;
    if (body) this.literalValue(body, t, type === "slice_type" || type === "array_type");
    return t;
  }

  /** `{Key: value, ...}`: stores into the literal; nested `{...}` elements without a type become literals too. */
  protected literalValue(body: Node, target: Slot | undefined, elementsIntoTarget = false): void {
    for (const el of body.namedChildren) {
      if (el.type === "keyed_element") {
        const [keyEl, valueEl] = el.namedChildren;
        const key = keyEl?.namedChildren[0] ?? keyEl;
        const value = valueEl?.namedChildren[0] ?? valueEl;
        if (!value) continue;
        const slot = value.type === "func_literal" ? this.funcLiteral(value, key?.text) : this.elementValue(value);
        if (target && key && key.type === "identifier" && slot)
          this.facts.constraints.push({ c: "store", base: target, field: key.text, src: slot });
      } else {
        const value = el.namedChildren[0] ?? el;
        const slot = this.elementValue(value);
        if (elementsIntoTarget && target && slot) this.facts.constraints.push({ c: "copy", dst: target, src: slot });
      }
    }
  }

  protected elementValue(value: Node): Slot | undefined {
    if (value.type === "literal_value") {
      const t = this.temp();
      this.facts.constraints.push({
        c: "alloc",
        dst: t,
        v: `l|${this.file}:${value.startPosition.row + 1}:${value.startPosition.column + 1}#${this.lits++}`,
      });
      this.literalValue(value, t);
      return t;
    }
    return isExpression(value.type) ? this.expr(value) : undefined;
  }
}

/** The type name a composite literal is written with (`Secret` in `corev1.Secret{}`), generic arguments left out. */
function kindOfType(type: Node | null): string | undefined {
  if (type?.type === "generic_type") return kindOfType(type.childForFieldName("type"));
  if (type?.type === "qualified_type") return type.childForFieldName("name")?.text;
  return type?.type === "type_identifier" ? type.text : undefined;
}

/** The Kind a literal's `TypeMeta: metav1.TypeMeta{Kind: "..."}` names, or undefined. */
function typeMetaKind(literal: Node): string | undefined {
  const valueOf = (body: Node | null | undefined, key: string): Node | undefined => {
    for (const el of body?.namedChildren ?? []) {
      if (el.type !== "keyed_element") continue;
      const [keyEl, valueEl] = el.namedChildren;
      if ((keyEl?.namedChildren[0] ?? keyEl)?.text === key) return valueEl?.namedChildren[0] ?? valueEl ?? undefined;
    }
    return undefined;
  };
  const typeMeta = valueOf(literal.childForFieldName("body"), "TypeMeta");
  if (typeMeta?.type !== "composite_literal") return undefined;
  const kind = valueOf(typeMeta.childForFieldName("body"), "Kind");
  return kind?.type === "interpreted_string_literal" ? kind.text.slice(1, -1) || undefined : undefined;
}
