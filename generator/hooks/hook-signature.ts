// Reads a user's hooks file (reconcile hooks, webhook hooks, conversions) with ts-morph (never regexes) to see whether
// its hook signatures still match the generator's.
// ts-morph takes most of a second to load: it is imported only when there is a user's hooks file to read.
import type { Node } from "ts-morph";

type TsMorph = typeof import("ts-morph");

export interface SignatureMismatch {
  hook: string;
  expected: string;
  found: string;
}

/** One function a user file exports for the generated code to call. */
export interface ExpectedHook {
  /** The export's name; `default` is the file's default export (a webhook file's `export default function`). */
  name: string;
  /** The parameters' types as the file spells them, e.g. ["FooContext", "Foo"]. */
  parameterTypes: string[];
  /** A required hook that is missing is a mismatch; an optional one may be left out. */
  required: boolean;
  /** The runtime passes more (a webhook hook's request): the file may declare parameters after the expected ones. */
  moreParameters?: boolean;
}

/** What a user-owned file must keep for the generated code that calls it. */
export interface ExpectedHooks {
  hooks: ExpectedHook[];
  /**
   * Where each parameter type may come from, as the file imports it (its local name -> the module specifiers it may
   * import it from, the one crdgen writes first). An import of one of these names from another generated module
   * (`*.types.js`, `*.controller.js`) is a mismatch: the version it came from moved (v1alpha1 -> v1).
   */
  imports: Record<string, string[]>;
}

/** The suffixes of generated modules a user file imports its parameter types from. */
const generatedModuleSuffixes = [".types.js", ".controller.js", ".webhook.js"];

export async function checkHookSignatures(
  fileName: string,
  text: string,
  expectedHooks: ExpectedHooks,
): Promise<SignatureMismatch[]> {
  const tsMorph = await import("ts-morph");
  const { Project } = tsMorph;
  const project = new Project({
    useInMemoryFileSystem: true,
    skipLoadingLibFiles: true,
    compilerOptions: { noLib: true },
  });
  const source = project.createSourceFile(fileName, text, { overwrite: true });
  const mismatches: SignatureMismatch[] = [];
  for (const hook of expectedHooks.hooks) {
    const expected = `(${hook.parameterTypes.join(", ")})`;
    const declarations = source.getExportedDeclarations().get(hook.name) ?? [];
    const fn = declarations.map((d) => functionLike(d, tsMorph)).find((f) => f !== undefined);
    if (!fn) {
      if (hook.required) mismatches.push({ hook: hook.name, expected, found: "no exported function" });
      continue;
    }
    if (fn === declaredByType) continue;
    const types = fn.getParameters().map((p) => p.getTypeNode()?.getText() ?? "untyped");
    const found = `(${types.join(", ")})`;
    const compared = hook.moreParameters ? types.slice(0, hook.parameterTypes.length) : types;
    if (`(${compared.join(", ")})` !== expected) mismatches.push({ hook: hook.name, expected, found });
  }
  return [...mismatches, ...movedImports(source, expectedHooks.imports)];
}

/** A parameter type imported from a generated module that is no longer the one the generated code uses. */
function movedImports(source: import("ts-morph").SourceFile, imports: Record<string, string[]>): SignatureMismatch[] {
  const mismatches: SignatureMismatch[] = [];
  for (const declaration of source.getImportDeclarations()) {
    const specifier = declaration.getModuleSpecifierValue();
    if (!generatedModuleSuffixes.some((suffix) => specifier.endsWith(suffix))) continue;
    const named = declaration.getNamedImports();
    const localNames = named.map((n) => n.getAliasNode()?.getText() ?? n.getName());
    const moved = localNames.filter((n) => imports[n] !== undefined && !imports[n].includes(specifier));
    if (moved.length === 0) continue;
    mismatches.push({
      hook: `import { ${named.map((n) => n.getText()).join(", ")} } from `,
      expected: JSON.stringify(imports[moved[0]!]![0]),
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
