// A Go file's top-level declarations: imports, types (fields, embedded types), functions and methods, package
// variables.
import type { Node } from "web-tree-sitter";
import { dirOfImport, pkgKeyOf } from "./modules.js";
import { GoStatementReader } from "./statements.js";

/** Reads one parsed Go file into the facts. */
export class GoFileReader extends GoStatementReader {
  read(root: Node): void {
    for (const node of root.namedChildren) {
      if (node.type === "import_declaration") this.readImports(node);
    }
    for (const node of root.namedChildren) {
      if (node.type === "type_declaration") this.readTypes(node);
      else if (node.type === "function_declaration" || node.type === "method_declaration") this.readFunction(node);
      else if (node.type === "var_declaration") this.readPackageVars(node);
    }
  }

  private readImports(decl: Node): void {
    for (const spec of decl.descendantsOfType("import_spec")) {
      const pathNode = spec.childForFieldName("path");
      if (!pathNode) continue;
      const importPath = pathNode.text.replace(/^["`]|["`]$/g, "");
      const alias = spec.childForFieldName("name")?.text ?? assumedPackageName(importPath);
      if (alias === "_" || alias === ".") continue;
      const dir = dirOfImport(importPath, this.modules);
      this.imports.set(alias, dir === undefined ? { path: importPath } : { path: importPath, pkgKey: pkgKeyOf(dir) });
    }
  }

  private readTypes(decl: Node): void {
    for (const spec of decl.descendantsOfType("type_spec")) {
      const name = spec.childForFieldName("name")?.text;
      const type = spec.childForFieldName("type");
      if (!name || !type) continue;
      const key = `${this.pkgKey}.${name}`;
      const hasChannel = type.type === "struct_type" && type.descendantsOfType("channel_type").length > 0;
      const fields: string[] = [];
      const fieldTypes: Record<string, string> = {};
      const embeds: string[] = [];
      if (type.type === "struct_type") {
        for (const field of type.descendantsOfType("field_declaration")) {
          if (field.parent?.parent?.id !== type.id) continue; // fields of nested anonymous structs are not this type's
          const names = field.childrenForFieldName("name");
          if (names.length) {
            fields.push(...names.map((n) => n.text));
            // The named type's last identifier (coreinformers.PodInformer → PodInformer): informer kinds come from it.
            const declared = field.childForFieldName("type");
            const typeName = declared?.descendantsOfType("type_identifier").at(-1)?.text;
            if (typeName && declared.type !== "function_type") for (const n of names) fieldTypes[n.text] = typeName;
          } else {
            // An embedded field: *base.Controller or Controller; its fields and methods are promoted.
            const embedded = field.childForFieldName("type");
            const inner = embedded?.type === "pointer_type" ? embedded.namedChildren[0] : embedded;
            const embeddedKey = this.typeKeyOf(inner ?? null);
            if (embeddedKey) embeds.push(embeddedKey);
          }
        }
      }
      this.types.set(key, { key, name, loc: this.loc(spec), methods: [], hasChannel, fields, fieldTypes, embeds });
    }
  }

  private readPackageVars(decl: Node): void {
    // Package-level variables: lowered in a pseudo function per file so their initialisers take part.
    const fn = this.newFn(decl, "package variables", undefined);
    this.withScope(fn, () => {
      for (const spec of decl.descendantsOfType("var_spec")) this.varSpec(spec, (name) => `${this.pkgKey}.${name}`);
    });
  }

  private readFunction(node: Node): void {
    const name = node.childForFieldName("name")?.text ?? "func";
    let owner: string | undefined;
    let receiverName: string | undefined;
    let display = name;
    if (node.type === "method_declaration") {
      const receiver = node
        .childForFieldName("receiver")
        ?.namedChildren.find((c) => c.type === "parameter_declaration");
      const typeNode = receiver?.childForFieldName("type");
      const pointer = typeNode?.type === "pointer_type";
      const typeName = typeNode?.descendantsOfType("type_identifier")[0]?.text ?? typeNode?.text ?? "?";
      owner = `${this.pkgKey}.${typeName}`;
      receiverName = receiver?.childForFieldName("name")?.text;
      display = `(${pointer ? "*" : ""}${typeName}).${name}`;
      const list = this.methods.get(owner) ?? [];
      list.push(name);
      this.methods.set(owner, list);
    }
    const fn = this.newFn(node, display, owner);
    if (owner) {
      this.facts.constraints.push({ c: "alloc", dst: `${owner}.${name}`, v: `f|${fn.id}` });
    } else {
      this.facts.constraints.push({ c: "alloc", dst: `${this.pkgKey}.${name}`, v: `f|${fn.id}` });
    }
    this.withScope(fn, (scope) => {
      if (owner) {
        this.facts.constraints.push({ c: "alloc", dst: `${fn.id}#this`, v: `o|${owner}` });
        if (receiverName) scope.names.set(receiverName, `${fn.id}#this`);
      }
      this.readParams(node.childForFieldName("parameters"), scope);
      this.readResults(node.childForFieldName("result"), scope);
      const body = node.childForFieldName("body");
      if (body) this.visit(body);
    });
  }
}

/**
 * An unaliased import's name as Go's tools assume it when they have not loaded the package (goimports): the path's
 * last element without a `go-` prefix, up to its first character that cannot be in an identifier
 * (`.../synchronization-controller` is package `synchronization`). A last element `v1` stays `v1`: Kubernetes API
 * packages are named so.
 */
export function assumedPackageName(importPath: string): string {
  const base = importPath.split("/").at(-1)!.replace(/^go-/, "");
  return /^[\p{L}_][\p{L}\p{Nd}_]*/u.exec(base)?.[0] ?? base;
}
