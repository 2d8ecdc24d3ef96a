// What the TypeScript compiler reads in a file: its syntax errors, and its tokens without whitespace or comments, so a
// test can tell that a formatter changed only the layout of a program.
import ts from "typescript";

/** The parser's errors, each as "line:column: message" (empty when the file parses). */
export function syntaxErrors(fileName: string, text: string): string[] {
  const { diagnostics = [] } = ts.transpileModule(text, { fileName, reportDiagnostics: true });
  return diagnostics.map((d) => {
    const { line, character } = d.file?.getLineAndCharacterOfPosition(d.start ?? 0) ?? { line: 0, character: 0 };
    return `${line + 1}:${character + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
  });
}

/**
 * The program's tokens, each as its kind and text, from the parsed tree (a scanner on its own would misread `/` and
 * template literals, which only the parser tells apart). Two texts with the same tokens are the same program.
 */
export function programTokens(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const tokens: string[] = [];
  const visit = (node: ts.Node): void => {
    const children = node.getChildren(source);
    if (children.length === 0) {
      if (node.kind !== ts.SyntaxKind.EndOfFileToken)
        tokens.push(`${ts.SyntaxKind[node.kind]} ${node.getText(source)}`);
      return;
    }
    children.forEach(visit);
  };
  visit(source);
  return tokens;
}
