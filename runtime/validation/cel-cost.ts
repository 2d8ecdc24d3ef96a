// The API server's CEL cost limits, metered client-side. cel-js has no cost tracking of its own, so a meter is
// hooked into its evaluator (every AST node it runs passes through `run`) and charges each node what cel-go's
// runtime cost model charges for it (interpreter/runtimecost.go, plus the Kubernetes library's call costs):
// identifiers and selections 1, constants 0, list and map literals 10 and 30, calls 1 unless their cost grows
// with the size of their arguments (strings at 0.1 per character, regexes at 0.25 per pattern character).
// Where cel-js does work in proportion to a value that cel-go does in constant time (concatenating lists, the
// size of a map, charAt), the meter charges the traversal too, so no expression can run unbounded here.
import type { Environment } from "@marcbachmann/cel-js";
import { re2MatchesMethod } from "./cel-environment.js";

/** celconfig.PerCallLimit: the most one evaluation of one expression may cost. */
export const perCallCostLimit = 1_000_000;
/** celconfig.RuntimeCELCostBudget: what all the rules of one object may cost together. */
export const runtimeCostBudget = 10_000_000;

/** cel-go's EvalCancelledError text when an evaluation goes over its cost limit. */
export const costLimitExceededMessage = "operation cancelled: actual cost limit exceeded";

export class CostLimitExceededError extends Error {
  constructor() {
    super(costLimitExceededMessage);
    this.name = "CostLimitExceededError";
  }
}

/** The parts of a cel-js AST node the meter reads. */
export interface MeteredNode {
  op: string;
  args: unknown;
  meta?: { alternate?: MeteredNode; macro?: unknown };
}

const stringFactor = 0.1;
const regexFactor = 0.25;
const listCreateCost = 10;
const mapCreateCost = 30;

/** Extra cost of one loop step of a comprehension, keyed by the step node (cel-go's loop condition and accumulator). */
const stepCosts = new WeakMap<object, number>();

export function registerComprehensionStep(step: object, cost: number): void {
  stepCosts.set(step, cost);
}

function sizeOf(value: unknown): number {
  if (typeof value === "string" || Array.isArray(value) || value instanceof Uint8Array) return value.length;
  if (value instanceof Map || value instanceof Set) return value.size;
  if (typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype)
    return Object.keys(value).length;
  return 1;
}

const traversal = (value: unknown, factor = stringFactor) => Math.ceil(sizeOf(value) * factor);

function listTraversal(value: unknown): number {
  if (!Array.isArray(value)) return traversal(value);
  let cost = 0;
  for (const item of value) cost += typeof item === "string" ? 1 + traversal(item) : 1;
  return cost;
}

/** What one call costs, with the receiver (if any) as args[0], as cel-go and the Kubernetes library charge it. */
function callCost(name: string, args: unknown[], result: unknown): number {
  switch (name) {
    case "matches":
    case re2MatchesMethod:
    case "find":
    case "findAll":
      return Math.ceil((1 + sizeOf(args[0])) * stringFactor) * traversal(args[1], regexFactor);
    case "contains":
      return traversal(args[0]) * traversal(args[1]);
    case "startsWith":
    case "endsWith":
    case "lowerAscii":
    case "upperAscii":
    case "substring":
    case "trim":
    case "isURL":
    case "url":
    case "isIP":
    case "isCIDR":
    case "cidr":
    case "ip":
    case "quantity":
    case "isQuantity":
    case "reverse":
    case "charAt":
      return traversal(args[0]);
    case "validate":
      return traversal(args[1]);
    case "replace":
    case "split":
      return traversal(args[0], 2 * stringFactor);
    case "join":
      return traversal(result, 2 * stringFactor);
    case "isSorted":
    case "sum":
    case "min":
    case "max":
    case "indexOf":
    case "lastIndexOf":
      return listTraversal(args[0]);
    case "size":
      // cel-js counts a map's keys to size it.
      return args.length === 1 && typeof args[0] === "object" && !Array.isArray(args[0]) ? traversal(args[0]) : 1;
    default:
      return 1;
  }
}

const isSequence = (v: unknown) => typeof v === "string" || Array.isArray(v) || v instanceof Uint8Array;

/** The cost of one node, given its result and the last results of its operands. */
function nodeCost(node: MeteredNode, result: unknown, values: Map<object, unknown>): number {
  const operand = (i: number): unknown => (Array.isArray(node.args) ? values.get(node.args[i] as object) : undefined);
  switch (node.op) {
    case "value":
    case "?:":
    case "||":
    case "&&":
    case "comprehension":
      return 0;
    case "id":
    case ".":
    case ".?":
    case "[]":
    case "[?]":
    case "accuValue":
      return 1;
    case "accuInc":
      return 2;
    case "accuPush":
      return 1 + listCreateCost + 1;
    case "list":
      return listCreateCost;
    case "map":
      return mapCreateCost;
    case "==":
    case "!=":
    case "<":
    case "<=":
    case ">":
    case ">=":
      return Math.ceil(Math.min(sizeOf(operand(0)), sizeOf(operand(1))) * stringFactor);
    case "in":
      return Array.isArray(operand(1)) ? sizeOf(operand(1)) : 1;
    case "+":
      // cel-go charges list concatenation 1 (it builds a view); cel-js copies, so it is charged like strings.
      return isSequence(operand(0)) && isSequence(operand(1))
        ? Math.ceil((sizeOf(operand(0)) + sizeOf(operand(1))) * stringFactor)
        : 1;
    case "call":
    case "rcall": {
      if (node.meta?.alternate) return 0; // a macro (all, exists, map, filter): its loop steps are charged
      const args = node.args as unknown[];
      const name = String(args[0]);
      if (node.meta?.macro) return name === "has" ? 1 : 0;
      const argNodes = (node.op === "call" ? args[1] : [args[1], ...(args[2] as unknown[])]) as object[];
      return callCost(
        name,
        argNodes.map((a) => values.get(a)),
        result,
      );
    }
    default:
      return 1;
  }
}

/** Counts the cost of the evaluation in progress and stops it (by throwing) once it goes over the limit. */
export class CostMeter {
  private spent = 0;
  private limit = perCallCostLimit;
  private over = false;
  private readonly values = new Map<object, unknown>();

  get cost(): number {
    return this.spent;
  }

  /** Whether the limit was crossed; sticky, because cel-js may swallow the error inside `||`, `&&` or a macro. */
  get exceeded(): boolean {
    return this.over;
  }

  start(limit = perCallCostLimit): void {
    this.spent = 0;
    this.limit = limit;
    this.over = false;
    this.values.clear();
  }

  /** Called before a node runs: once over the limit, nothing runs any more. */
  enter(): void {
    if (this.over) throw new CostLimitExceededError();
  }

  /** Called after a node ran, with its result. */
  charge(node: MeteredNode, result: unknown): void {
    this.values.set(node, result);
    this.spent += nodeCost(node, result, this.values) + (stepCosts.get(node) ?? 0);
    if (this.spent > this.limit) {
      this.over = true;
      throw new CostLimitExceededError();
    }
  }
}

interface Evaluator {
  run(ast: MeteredNode & { evaluate(ev: Evaluator, ast: MeteredNode, ctx: unknown): unknown }, ctx: unknown): unknown;
}

const probe = "crdgenCostMeterProbe";
/** Function names the meter adds to the environment, which rules themselves may not call. */
export const internalFunctionNames: ReadonlySet<string> = new Set([probe]);

/**
 * Installs a meter on the environment's evaluator. cel-js calls registered functions with the evaluator as `this`,
 * and the evaluator runs every node through its `run` method: a probe function hands the evaluator over and its
 * `run` is wrapped. If a cel-js release changes either, this throws instead of leaving CEL unmetered.
 */
export function installCostMeter(env: Environment): CostMeter {
  let evaluator: Evaluator | undefined;
  const handOver = (ev: Evaluator) => (evaluator = ev);
  env.registerFunction(`${probe}(): bool`, function (this: Evaluator) {
    handOver(this);
    return true;
  });
  env.evaluate(`${probe}()`);
  if (!evaluator || typeof evaluator.run !== "function")
    throw new Error("crdgen: this @marcbachmann/cel-js release gives no way to meter the cost of CEL expressions");
  const meter = new CostMeter();
  evaluator.run = function (ast, ctx) {
    meter.enter();
    const result = ast.evaluate(this, ast, ctx);
    meter.charge(ast, result);
    return result;
  };
  // The probe's own evaluation must have been charged, or the hook is not where nodes run.
  meter.start();
  env.evaluate(`[1, 2].all(x, x > 0)`);
  if (meter.cost === 0) throw new Error("crdgen: the CEL cost meter could not be hooked into @marcbachmann/cel-js");
  return meter;
}
