// Reads a user's hooks file with ts-morph (never regexes) to see whether its hook signatures still match the generator's.
import { Project, SyntaxKind, type Node } from "ts-morph";

export interface SignatureMismatch {
  hook: string;
  expected: string;
  found: string;
}

/**
 * Compares the parameter types of the exported `reconcile` (and `finalize`, when present) with what the
 * generated controller passes. A missing `reconcile` is a mismatch; a missing `finalize` is fine (it is optional).
 */
export function checkHookSignatures(fileName: string, text: string, parameterTypes: string[]): SignatureMismatch[] {
  const project = new Project({ useInMemoryFileSystem: true, skipLoadingLibFiles: true, compilerOptions: { noLib: true } });
  const source = project.createSourceFile(fileName, text, { overwrite: true });
  const expected = `(${parameterTypes.join(", ")})`;
  const mismatches: SignatureMismatch[] = [];
  for (const hook of ["reconcile", "finalize"]) {
    const declarations = source.getExportedDeclarations().get(hook) ?? [];
    const fn = declarations.map(functionLike).find((f) => f !== undefined);
    if (!fn) {
      if (hook === "reconcile") mismatches.push({ hook, expected, found: "no exported function" });
      continue;
    }
    const found = `(${fn.getParameters().map((p) => p.getTypeNode()?.getText() ?? "untyped").join(", ")})`;
    if (found !== expected) mismatches.push({ hook, expected, found });
  }
  return mismatches;
}

type FunctionLike = { getParameters(): Array<{ getTypeNode(): Node | undefined }> };

function functionLike(node: Node): FunctionLike | undefined {
  if (node.isKind(SyntaxKind.FunctionDeclaration)) return node;
  if (node.isKind(SyntaxKind.VariableDeclaration)) {
    const init = node.getInitializer();
    if (init && (init.isKind(SyntaxKind.ArrowFunction) || init.isKind(SyntaxKind.FunctionExpression))) return init;
  }
  return undefined;
}
