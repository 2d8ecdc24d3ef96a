// The API server's CEL cost limits, metered client-side. cel-js has no cost tracking of its own, so a meter is
// hooked into its evaluator (every AST node it runs passes through `run`) and charges each node what cel-go's
// runtime cost model charges for it: identifiers and selections 1, constants 0, list and map literals 10 and 30,
// comprehension steps as cel-go's loops. Calls and `+` are charged before they run, from their operands
// (cel-call-cost.ts has the figures), so a result over the limit is refused before it is built: cel-go charges
// a call after it ran, which is what let `self.replace('', self)` build hundreds of megabytes here first.
import type { Environment } from "@marcbachmann/cel-js";
import {
  additionCost,
  callCost,
  comparisonCost,
  equalityCost,
  listCreateCost,
  membershipCost,
  sizeOf,
} from "./cel-call-cost.js";

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

const mapCreateCost = 30;

/** Extra cost of one loop step of a comprehension, keyed by the step node (cel-go's loop condition and accumulator). */
const stepCosts = new WeakMap<object, number>();

export function registerComprehensionStep(step: object, cost: number): void {
  stepCosts.set(step, cost);
}

/** Nodes whose cost is charged before they run (calls and `+`), by meterBeforeRunning. */
const chargedBefore = new WeakSet<object>();

/** What cel-go charges for the nodes whose cost does not depend on their operands. */
const fixedCosts: Record<string, number> = {
  value: 0,
  "?:": 0,
  "||": 0,
  "&&": 0,
  comprehension: 0,
  id: 1,
  ".": 1,
  ".?": 1,
  "[]": 1,
  "[?]": 1,
  accuValue: 1,
  accuInc: 2,
  accuPush: 1 + listCreateCost + 1,
  list: listCreateCost,
  map: mapCreateCost,
};
const comparisons = new Set(["==", "!=", "<", "<=", ">", ">="]);

/** A call charged after it ran: a macro, or a call cel-js ran without going through its handle. */
function callCostAfter(node: MeteredNode, values: Map<object, unknown>): number {
  if (node.meta?.alternate) return 0; // a macro (all, exists, map, filter): its loop steps are charged
  const args = node.args as unknown[];
  const name = String(args[0]);
  if (node.meta?.macro) return name === "has" ? 1 : 0;
  const argNodes = (node.op === "call" ? args[1] : [args[1], ...(args[2] as unknown[])]) as object[];
  return callCost(
    name,
    argNodes.map((a) => values.get(a)),
  );
}

/** The cost of one node, from the last results of its operands, unless it was charged before it ran. */
function nodeCost(node: MeteredNode, values: Map<object, unknown>): number {
  if (chargedBefore.has(node)) return 0;
  const fixed = Object.hasOwn(fixedCosts, node.op) ? fixedCosts[node.op] : undefined;
  if (fixed !== undefined) return fixed;
  const operand = (i: number): unknown => (Array.isArray(node.args) ? values.get(node.args[i] as object) : undefined);
  if (comparisons.has(node.op)) return comparisonCost(operand(0), operand(1));
  if (node.op === "in") return Array.isArray(operand(1)) ? sizeOf(operand(1)) : 1;
  if (node.op === "+") return additionCost(operand(0), operand(1));
  if (node.op === "call" || node.op === "rcall") return callCostAfter(node, values);
  return 1;
}

/** Counts the cost of the evaluation in progress and stops it (by throwing) once it goes over the limit. */
export class CostMeter {
  private spent = 0;
  private limit = perCallCostLimit;
  private over = false;
  private stopped = new CostLimitExceededError();
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

  /**
   * Called before a node runs: once over the limit, nothing runs any more. all() and exists() go on with their
   * remaining items after an error (a later false decides them): each gets the one error made at the limit,
   * because a new one per item (a stack trace each) took seconds over 100,000 items.
   */
  enter(): void {
    if (this.over) throw this.stopped;
  }

  /** Called after a node ran, with its result. */
  charge(node: MeteredNode, result: unknown): void {
    this.values.set(node, result);
    this.add(nodeCost(node, this.values) + (stepCosts.get(node) ?? 0));
  }

  /** Charges a call before it runs, from its arguments: over the limit, it never runs. */
  chargeCall(name: string, args: unknown[]): void {
    this.refuseOver(callCost(name, args, this.limit - this.spent));
  }

  /** Charges `+`, `==`, `!=` and `in` before they run: a concatenation or deep comparison over the limit never runs. */
  chargeOperator(op: string, left: unknown, right: unknown): void {
    const remaining = this.limit - this.spent;
    if (op === "+") this.refuseOver(additionCost(left, right));
    else if (op === "in") this.refuseOver(membershipCost(left, right, remaining));
    else this.refuseOver(equalityCost(left, right, remaining));
  }

  private add(cost: number): void {
    this.spent += cost;
    if (this.spent > this.limit) {
      this.over = true;
      this.stopped = new CostLimitExceededError();
      throw this.stopped;
    }
  }

  /**
   * Adds the cost of an operation about to run, or refuses it. A refused operation did no work: the evaluation
   * counts as stopped just past the limit, where cel-go stops a loop, so the error is the per-call limit's rather
   * than the per-object budget's (which a cost of millions charged at once would exhaust).
   */
  private refuseOver(cost: number): void {
    if (this.spent + cost > this.limit) this.spent = Math.max(this.spent, this.limit) + 1;
    else this.spent += cost;
    this.add(0);
  }
}

type Handle = (first: unknown, ...rest: unknown[]) => unknown;
interface CheckedNode extends MeteredNode {
  /** What cel-js's type-check attaches to calls and operators: the operation, given its evaluated operands. */
  handle?: Handle;
}

const isNode = (v: unknown): v is CheckedNode =>
  typeof v === "object" && v !== null && typeof (v as CheckedNode).op === "string";

const surrogate = /[\uD800-\uDFFF]/;

/**
 * size() of a string, in code points as cel-js counts them, without its one-by-one count (12 ns a character)
 * when the string has no surrogates, where the length is the answer (a regular expression finds none in 0.5 ms
 * per million characters).
 */
function stringSize(s: string): bigint {
  if (!surrogate.test(s)) return BigInt(s.length);
  let count = 0;
  for (const _ of s) count++;
  return BigInt(count);
}

/** The operators charged before they run: their work grows with their operands' size. */
const chargedOperators = new Set(["+", "==", "!=", "in"]);

/** Wraps the operation of one call or operator so that it is charged, from its operands, before it runs. */
function chargeBeforeRunning(node: CheckedNode, meter: CostMeter): void {
  const run = node.handle;
  if (typeof run !== "function" || chargedBefore.has(node)) return;
  if (chargedOperators.has(node.op)) {
    node.handle = (left, right, ...rest) => {
      meter.chargeOperator(node.op, left, right);
      return run(left, right, ...rest);
    };
  } else {
    // call: handle(args, ast, ev); rcall: handle([receiver, ...args], ev, ast).
    const name = String((node.args as unknown[])[0]);
    node.handle = (args, ...rest) => {
      meter.chargeCall(name, args as unknown[]);
      const [only, ...more] = args as unknown[];
      if (name === "size" && typeof only === "string" && more.length === 0) return stringSize(only);
      return run(args, ...rest);
    };
  }
  chargedBefore.add(node);
}

/**
 * Makes every call and `+` of a type-checked expression pay its cost before it runs: cel-js evaluates the
 * operands (each through the meter), then hands them to the node's `handle`, which is wrapped here. A call whose
 * result would put the evaluation over its limit is refused before that result is built.
 */
export function chargeCallsBeforeRunning(ast: unknown, meter: CostMeter, seen = new Set<unknown>()): void {
  if (typeof ast !== "object" || ast === null || seen.has(ast)) return;
  seen.add(ast);
  if (Array.isArray(ast)) {
    for (const part of ast) chargeCallsBeforeRunning(part, meter, seen);
    return;
  }
  if (!isNode(ast)) return;
  if (ast.op === "call" || ast.op === "rcall" || chargedOperators.has(ast.op)) chargeBeforeRunning(ast, meter);
  if (ast.op === "comprehension") {
    const loop = ast.args as Comprehension;
    stopWhenOver(loop, meter);
    chargeCallsBeforeRunning([loop.iterable, loop.init, loop.step], meter, seen);
  } else chargeCallsBeforeRunning(ast.args, meter, seen);
  chargeCallsBeforeRunning(ast.meta?.alternate, meter, seen);
}

/** The parts of a cel-js comprehension (a macro's loop) the meter reads. */
interface Comprehension {
  iterable: unknown;
  init: unknown;
  step: unknown;
  condition?: (accu: unknown) => boolean;
}

/**
 * all() and exists() go on with their remaining items after an error (a later item may decide them), each
 * stopped at once by the meter: 100,000 items past the limit took 70 ms. Their loop condition (whether to go on)
 * now also says no once the limit is crossed; the evaluation still ends in the cost error.
 */
function stopWhenOver(loop: Comprehension, meter: CostMeter): void {
  const goOn = loop.condition;
  if (typeof goOn === "function") loop.condition = (accu) => !meter.exceeded && goOn(accu);
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
 * `run` is wrapped. If a cel-js release changes either, or no longer runs calls through the `handle` that
 * chargeCallsBeforeRunning wraps, this throws instead of leaving CEL unmetered.
 */
export function installCostMeter(env: Environment): CostMeter {
  let evaluator: Evaluator | undefined;
  let probeRuns = 0;
  const handOver = (ev: Evaluator) => {
    evaluator = ev;
    probeRuns++;
  };
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
  // A call over the limit must be refused before it runs, or calls do not go through the wrapped handle.
  const parsed = env.parse(`[${probe}()].size() == 1`);
  parsed.check();
  chargeCallsBeforeRunning(parsed.ast, meter);
  meter.start(0);
  probeRuns = 0;
  try {
    parsed();
  } catch {
    // the expected cost error
  }
  if (probeRuns !== 0 || !meter.exceeded)
    throw new Error("crdgen: the CEL cost meter cannot charge calls before they run in @marcbachmann/cel-js");
  return meter;
}
