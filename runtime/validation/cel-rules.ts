// Compiles and evaluates one x-kubernetes-validations rule against a node's value, as the API server does:
// `self` is the node (typed by its schema: integers as CEL int, numbers as double, date-time strings as
// timestamps), `oldSelf` the correlated old value for transition rules.
import type { Environment } from "@marcbachmann/cel-js";
import { kubernetesCelEnvironment } from "./cel-environment.js";
import { isJsonObject, type CelRule, type StructuralNode } from "./structural.js";

export type CompiledRule =
  | {
      supported: true;
      usesOldSelf: boolean;
      run: (vars: Record<string, unknown>) => unknown;
      message?: (vars: Record<string, unknown>) => unknown;
    }
  | { supported: false; reason: string };

let environment: Environment | undefined;
let knownFunctions: Set<string> | undefined;
const env = () => (environment ??= kubernetesCelEnvironment());

/** Every function (and macro) name the environment defines. */
function functionNames(): Set<string> {
  if (!knownFunctions)
    knownFunctions = new Set(
      env()
        .getDefinitions()
        .functions.map((f) => f.name),
    );
  return knownFunctions;
}

interface AstNode {
  op: string;
  args: unknown;
}
const isAst = (v: unknown): v is AstNode =>
  typeof v === "object" && v !== null && typeof (v as AstNode).op === "string";

/** The function names an expression calls and whether it reads oldSelf. */
function scan(ast: unknown, found: { calls: Set<string>; oldSelf: boolean }): void {
  if (Array.isArray(ast)) {
    for (const a of ast) scan(a, found);
    return;
  }
  if (!isAst(ast)) return;
  if (ast.op === "id" && ast.args === "oldSelf") found.oldSelf = true;
  if ((ast.op === "call" || ast.op === "rcall") && Array.isArray(ast.args) && typeof ast.args[0] === "string")
    found.calls.add(ast.args[0]);
  if (Array.isArray(ast.args)) for (const a of ast.args) scan(a, found);
}

const cache = new Map<string, CompiledRule>();

function compileExpression(expression: string): CompiledRule {
  const cached = cache.get(expression);
  if (cached) return cached;
  let compiled: CompiledRule;
  try {
    const parsed = env().parse(expression);
    const found = { calls: new Set<string>(), oldSelf: false };
    scan(parsed.ast, found);
    const unknown = [...found.calls].filter((name) => !functionNames().has(name));
    const checked = parsed.check();
    if (unknown.length)
      compiled = {
        supported: false,
        reason: `calls ${unknown.join(", ")}, which crdgen's CEL environment does not implement`,
      };
    else if (!checked.valid)
      compiled = {
        supported: false,
        reason: `the CEL library cannot type-check it: ${(checked.error?.message ?? "").split("\n")[0]}`,
      };
    else compiled = { supported: true, usesOldSelf: found.oldSelf, run: (vars): unknown => parsed(vars) };
  } catch (error) {
    compiled = {
      supported: false,
      reason: `the CEL library cannot parse it: ${(error instanceof Error ? error.message : String(error)).split("\n")[0]}`,
    };
  }
  cache.set(expression, compiled);
  return compiled;
}

/** The rule compiled, with its messageExpression when that is supported too (else the static message is used). */
export function compileRule(rule: CelRule): CompiledRule {
  const compiled = compileExpression(rule.rule);
  if (!compiled.supported || !rule.messageExpression) return compiled;
  const message = compileExpression(rule.messageExpression);
  return message.supported ? { ...compiled, message: message.run } : compiled;
}

/** A JSON value as the API server hands it to CEL, typed by its schema node. */
export function toCelValue(value: unknown, node: StructuralNode | undefined): unknown {
  if (value === null || value === undefined) return value;
  if (typeof value === "number") {
    if (node?.type === "number") return value;
    if (node?.type === "integer" || node?.intOrString || Number.isInteger(value))
      return Number.isInteger(value) ? BigInt(value) : value;
    return value;
  }
  if (typeof value === "string") {
    if (node?.type === "string" && node.format === "date-time") {
      const t = new Date(value);
      return Number.isNaN(t.getTime()) ? value : t;
    }
    if (node?.type === "string" && node.format === "byte") return new Uint8Array(Buffer.from(value, "base64"));
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => toCelValue(v, node?.items));
  if (isJsonObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const child =
        node?.properties && Object.prototype.hasOwnProperty.call(node.properties, k)
          ? node.properties[k]
          : node?.additionalProperties;
      out[k] = toCelValue(v, child);
    }
    return out;
  }
  return value;
}
