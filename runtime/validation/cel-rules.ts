// Compiles and evaluates one x-kubernetes-validations rule against a node's value, as the API server does:
// `self` is the node (typed by its schema: integers as CEL int, numbers as double, date-time strings as
// timestamps), `oldSelf` the correlated old value for transition rules. Every evaluation is metered with the
// API server's cost model and stopped at its per-call limit.
import type { Environment } from "@marcbachmann/cel-js";
import { kubernetesCelEnvironment, re2MatchesMethod } from "./cel-environment.js";
import {
  chargeCallsBeforeRunning,
  installCostMeter,
  internalFunctionNames,
  perCallCostLimit,
  registerComprehensionStep,
  type CostMeter,
} from "./cel-cost.js";
import { isJsonObject, type CelRule, type StructuralNode } from "./structural.js";

/** One evaluation: its value or the error it raised, what it cost, and whether it was stopped at the cost limit. */
export interface Evaluation {
  value?: unknown;
  error?: unknown;
  cost: number;
  costLimitExceeded: boolean;
}

export type CompiledRule =
  | {
      supported: true;
      usesOldSelf: boolean;
      run: (vars: Record<string, unknown>) => Evaluation;
      message?: (vars: Record<string, unknown>) => Evaluation;
    }
  | { supported: false; reason: string };

let environment: { env: Environment; meter: CostMeter } | undefined;
let knownFunctions: Set<string> | undefined;

function metered(): { env: Environment; meter: CostMeter } {
  if (!environment) {
    const env = kubernetesCelEnvironment();
    environment = { env, meter: installCostMeter(env) };
  }
  return environment;
}
const env = () => metered().env;

/** Names crdgen registers for itself, which a rule may not call (the API server does not know them). */
const internalNames = new Set([...internalFunctionNames, re2MatchesMethod]);

/** Every function (and macro) name the environment defines for rules. */
function functionNames(): Set<string> {
  if (!knownFunctions)
    knownFunctions = new Set(
      env()
        .getDefinitions()
        .functions.map((f) => f.name)
        .filter((name) => !internalNames.has(name)),
    );
  return knownFunctions;
}

interface AstNode {
  op: string;
  args: unknown;
}
const isAst = (v: unknown): v is AstNode =>
  typeof v === "object" && v !== null && typeof (v as AstNode).op === "string";

/**
 * The function names an expression calls and whether it reads oldSelf; `s.matches(re)` calls are pointed at the
 * RE2 implementation (before type-checking binds them to cel-js's own, which uses JS RegExp).
 */
function scan(ast: unknown, found: { calls: Set<string>; oldSelf: boolean }): void {
  if (Array.isArray(ast)) {
    for (const a of ast) scan(a, found);
    return;
  }
  if (!isAst(ast)) return;
  if (ast.op === "id" && ast.args === "oldSelf") found.oldSelf = true;
  if ((ast.op === "call" || ast.op === "rcall") && Array.isArray(ast.args) && typeof ast.args[0] === "string") {
    found.calls.add(ast.args[0]);
    if (ast.op === "rcall" && ast.args[0] === "matches") ast.args[0] = re2MatchesMethod;
  }
  // Operands are an array, or a single node for unary operators (`!`, `-`).
  scan(ast.args, found);
}

interface Comprehension {
  op: "comprehension";
  args: { kind?: string; condition?: unknown; step: object };
}
const isComprehension = (v: unknown): v is Comprehension =>
  isAst(v) && v.op === "comprehension" && typeof v.args === "object" && v.args !== null;

/**
 * Registers the loop step of every macro with what cel-go charges per iteration beyond the predicate: all() and
 * exists() test and read the accumulator (3); exists_one(), map() and filter() are charged through their
 * accumulator nodes.
 */
function registerSteps(ast: unknown, seen = new Set<unknown>()): void {
  if (typeof ast !== "object" || ast === null || seen.has(ast)) return;
  seen.add(ast);
  if (Array.isArray(ast)) {
    for (const a of ast) registerSteps(a, seen);
    return;
  }
  if (!isAst(ast)) return;
  const alternate = (ast as { meta?: { alternate?: unknown } }).meta?.alternate;
  if (isComprehension(alternate)) {
    const quantifierWithCondition = alternate.args.kind === "quantifier" && alternate.args.condition !== undefined;
    registerComprehensionStep(alternate.args.step, quantifierWithCondition ? 3 : 0);
    registerSteps(Object.values(alternate.args), seen);
  }
  registerSteps(ast.args, seen);
}

/** Runs a parsed expression under the cost meter. */
function evaluate(parsed: ((vars: Record<string, unknown>) => unknown) & { ast: unknown }) {
  return (vars: Record<string, unknown>): Evaluation => {
    const { meter } = metered();
    meter.start(perCallCostLimit);
    let evaluation: Evaluation;
    try {
      const value = parsed(vars);
      // The root node is run by cel-js directly, not through the evaluator's run: charge it here.
      meter.charge(parsed.ast as never, value);
      evaluation = { value, cost: meter.cost, costLimitExceeded: false };
    } catch (error) {
      evaluation = { error, cost: meter.cost, costLimitExceeded: false };
    }
    evaluation.costLimitExceeded = meter.exceeded;
    return evaluation;
  };
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
    else {
      registerSteps(parsed.ast);
      chargeCallsBeforeRunning(parsed.ast, metered().meter);
      compiled = { supported: true, usesOldSelf: found.oldSelf, run: evaluate(parsed) };
    }
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
    // A Map, not an object: cel-js sizes, looks up and type-checks a Map in constant time, where it enumerates
    // every key of an object (for...in) each time a rule passes it as dyn.
    const out = new Map<string, unknown>();
    for (const [k, v] of Object.entries(value)) {
      const child =
        node?.properties && Object.prototype.hasOwnProperty.call(node.properties, k)
          ? node.properties[k]
          : node?.additionalProperties;
      out.set(k, toCelValue(v, child));
    }
    return out;
  }
  return value;
}
