// Reads a user's hooks file with ts-morph (never regexes) to see whether its hook signatures still match the
// generator's.
// ts-morph takes most of a second to load: it is imported only when there is a user's hooks file to read.
import type { Node } from "ts-morph";

type TsMorph = typeof import("ts-morph");

export interface SignatureMismatch {
  hook: string;
  expected: string;
  found: string;
}

/**
 * Compares the parameter types of the exported `reconcile` (and `finalize`, when present) with what the
 * generated controller passes. A missing `reconcile` is a mismatch; a missing `finalize` is fine (it is optional).
 */
export interface ExpectedHooks {
  /** The hook parameters' types, e.g. ["FooContext", "Foo"]. */
  parameterTypes: string[];
  /** Where the generated types and controller modules of the controller's version are, as the hooks file imports them. */
  modules: { types: string; controller: string };
}

export async function checkHookSignatures(
  fileName: string,
  text: string,
  expectedHooks: ExpectedHooks,
): Promise<SignatureMismatch[]> {
  const { parameterTypes } = expectedHooks;
  const tsMorph = await import("ts-morph");
  const { Project } = tsMorph;
  const project = new Project({
    useInMemoryFileSystem: true,
    skipLoadingLibFiles: true,
    compilerOptions: { noLib: true },
  });
  const source = project.createSourceFile(fileName, text, { overwrite: true });
  const expected = `(${parameterTypes.join(", ")})`;
  const mismatches: SignatureMismatch[] = [];
  for (const hook of ["reconcile", "finalize"]) {
    const declarations = source.getExportedDeclarations().get(hook) ?? [];
    const fn = declarations.map((d) => functionLike(d, tsMorph)).find((f) => f !== undefined);
    if (!fn) {
      if (hook === "reconcile") mismatches.push({ hook, expected, found: "no exported function" });
      continue;
    }
    if (fn === declaredByType) continue;
    const found = `(${fn
      .getParameters()
      .map((p) => p.getTypeNode()?.getText() ?? "untyped")
      .join(", ")})`;
    if (found !== expected) mismatches.push({ hook, expected, found });
  }
  return [...mismatches, ...movedImports(source, expectedHooks)];
}

/**
 * A hook parameter type imported from a generated types or controller module that is not the controller's any more:
 * the storage version moved (v1alpha1 -> v1), and the old version's controller module is gone.
 */
function movedImports(
  source: import("ts-morph").SourceFile,
  { parameterTypes, modules }: ExpectedHooks,
): SignatureMismatch[] {
  const mismatches: SignatureMismatch[] = [];
  for (const declaration of source.getImportDeclarations()) {
    const specifier = declaration.getModuleSpecifierValue();
    const names = declaration.getNamedImports().map((n) => n.getName());
    const wanted = specifier.endsWith(".controller.js")
      ? modules.controller
      : specifier.endsWith(".types.js")
        ? modules.types
        : undefined;
    if (wanted === undefined || specifier === wanted || !names.some((n) => parameterTypes.includes(n))) continue;
    mismatches.push({
      hook: `import { ${names.join(", ")} } from `,
      expected: JSON.stringify(wanted),
      found: JSON.stringify(specifier),
    });
  }
  return mismatches;
}

type FunctionLike = { getParameters(): Array<{ getTypeNode(): Node | undefined }> };

/** A `const reconcile: SomeHooks["reconcile"] = ...`: its type annotation (which the compiler checks) sets the signature. */
const declaredByType: FunctionLike = { getParameters: () => [] };

function functionLike(node: Node, { SyntaxKind }: TsMorph): FunctionLike | undefined {
  if (node.isKind(SyntaxKind.FunctionDeclaration)) return node;
  if (node.isKind(SyntaxKind.VariableDeclaration)) {
    const annotation = node.getTypeNode();
    if (annotation) return annotation.isKind(SyntaxKind.FunctionType) ? annotation : declaredByType;
    const init = node.getInitializer();
    if (init && (init.isKind(SyntaxKind.ArrowFunction) || init.isKind(SyntaxKind.FunctionExpression))) return init;
  }
  return undefined;
}
