// What one CEL call costs, worked out from its arguments before it runs, so that a call whose result would be
// over the limit is refused before it is built. The figures are upstream's:
// - the strings extension (charAt, indexOf, lastIndexOf, lowerAscii, upperAscii, replace, split, substring, trim,
//   join): cel-go's cost trackers for it (ext/strings.go, version 5), which charge the size of the result. The
//   API server's own figures for these (its library's cost.go, on strings version 2) charge replace and split by
//   their input, which leaves `self.replace('', self)` (a result the square of its input) nearly free;
// - the lists extension's reverse(): cel-go's tracker for it (ext/lists.go), the size of the result;
// - the Kubernetes library (lists, regex, URLs, IPs, quantities): k8s.io/apiserver/pkg/cel/library/cost.go;
// - operators: cel-go's interpreter/runtimecost.go.
// Where cel-js does work in proportion to a value that cel-go handles in constant time (concatenating lists, which
// cel-js copies; the size of a string or a map, which cel-js counts), that work is charged as a scan of the value.
// Sizes are JS string lengths (UTF-16 units), never fewer than cel-go's code points.
import { re2MatchesMethod } from "./cel-environment.js";

const stringFactor = 0.1;
const regexFactor = 0.25;
const callBase = 1;
/** cel-go's cost of making a list (common.ListCreateBaseCost). */
export const listCreateCost = 10;

function sizeOf(value: unknown): number {
  if (typeof value === "string" || Array.isArray(value) || value instanceof Uint8Array) return value.length;
  if (value instanceof Map || value instanceof Set) return value.size;
  if (typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype)
    return Object.keys(value).length;
  return 1;
}

const scan = (value: unknown, factor = stringFactor) => Math.ceil(sizeOf(value) * factor);
const text = (value: unknown) => (typeof value === "string" ? value : "");
const count = (value: unknown, fallback: number) => (typeof value === "bigint" ? Number(value) : fallback);

/** The Kubernetes library's traversalCost: a tenth per character of every string reached, 1 per other value. */
function traversal(value: unknown): number {
  if (typeof value === "string" || value instanceof Uint8Array) return Math.floor(value.length * stringFactor);
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + traversal(item), 0);
  return 1;
}

/** Non-overlapping occurrences of `needle` in `s`, at most `limit`; an empty needle matches around every unit. */
function occurrences(s: string, needle: string, limit: number): number {
  if (needle === "") return Math.min(s.length + 1, limit);
  let found = 0;
  for (let at = s.indexOf(needle); at >= 0 && found < limit; at = s.indexOf(needle, at + needle.length)) found++;
  return found;
}

/**
 * replace(old, new[, n]): the search (target times needle, each at least 1) and the result's size, counted
 * before the result is built. The search is charged first: when it alone is over `remaining`, nothing is counted.
 */
function replaceCost(args: unknown[], remaining: number): number {
  const [s, old, replacement] = [text(args[0]), text(args[1]), text(args[2])];
  const search = Math.ceil(Math.max(s.length, 1) * Math.max(old.length, 1) * stringFactor);
  if (search + callBase > remaining) return search + callBase;
  const limit = count(args[3], -1);
  const replaced = limit === 0 || old === replacement ? 0 : occurrences(s, old, limit < 0 ? Infinity : limit);
  return callBase + search + s.length + replaced * (replacement.length - old.length);
}

/** split(sep[, n]): a scan of the target, a list of as many parts as the separator makes, and its allocation. */
function splitCost(args: unknown[]): number {
  const [s, separator] = [text(args[0]), text(args[1])];
  const limit = count(args[2], -1);
  let parts = 0;
  if (limit !== 0)
    parts =
      separator === ""
        ? Math.min(s.length, limit < 0 ? Infinity : limit)
        : Math.min(occurrences(s, separator, Infinity) + 1, limit < 0 ? Infinity : limit);
  return callBase + Math.ceil((s.length + 1) * stringFactor) + parts + listCreateCost;
}

/** join([sep]): a scan of the list and the size of the string it makes. */
function joinCost(args: unknown[]): number {
  const list = Array.isArray(args[0]) ? (args[0] as unknown[]) : [];
  const separator = text(args[1]);
  const joined = list.reduce((sum: number, item) => sum + text(item).length, 0);
  const result = joined + separator.length * Math.max(list.length - 1, 0);
  return callBase + Math.ceil((list.length + 1) * stringFactor) + result;
}

/** substring(start[, end]): a scan of the target and the size of the substring. */
function substringCost(args: unknown[]): number {
  const s = text(args[0]);
  const start = count(args[1], 0);
  const end = count(args[2], s.length);
  return callBase + scan(s) + Math.max(Math.min(end, s.length) - Math.max(start, 0), 0);
}

/** The strings extension, as cel-go's version-5 trackers charge it; undefined for any other function. */
function stringExtensionCost(name: string, args: unknown[], remaining: number): number | undefined {
  const target = args[0];
  if (typeof target !== "string") return undefined;
  switch (name) {
    case "lowerAscii":
    case "upperAscii":
      return callBase + scan(target) + target.length;
    case "trim":
      return callBase + scan(target) + target.trim().length;
    case "charAt":
      return callBase + scan(target) + 1;
    case "substring":
      return substringCost(args);
    case "indexOf":
    case "lastIndexOf":
      return callBase + Math.ceil(target.length * text(args[1]).length * stringFactor);
    case "replace":
      return replaceCost(args, remaining);
    case "split":
      return splitCost(args);
    default:
      return undefined;
  }
}

type CostOf = (args: unknown[]) => number;
const regexCost: CostOf = (args) => Math.ceil((1 + sizeOf(args[0])) * stringFactor) * scan(args[1], regexFactor);
const scanTarget: CostOf = (args) => scan(args[0]);
const traverseTarget: CostOf = (args) => traversal(args[0]);

/** The Kubernetes library and cel-go's standard functions; anything else costs 1. */
const libraryCosts: Record<string, CostOf> = {
  matches: regexCost,
  [re2MatchesMethod]: regexCost,
  find: regexCost,
  findAll: regexCost,
  contains: (args) => scan(args[0]) * scan(args[1]),
  startsWith: scanTarget,
  endsWith: scanTarget,
  isURL: scanTarget,
  url: scanTarget,
  isIP: scanTarget,
  isCIDR: scanTarget,
  cidr: scanTarget,
  ip: scanTarget,
  quantity: scanTarget,
  isQuantity: scanTarget,
  validate: (args) => scan(args[1]),
  isSorted: traverseTarget,
  sum: traverseTarget,
  min: traverseTarget,
  max: traverseTarget,
  indexOf: traverseTarget,
  lastIndexOf: traverseTarget,
  // Conversions between strings and bytes traverse them (cel-go's StringToBytes and BytesToString); so do
  // conversions parsing a string, which cel-go charges 1 and cel-js parses in time growing with it.
  string: scanTarget,
  bytes: scanTarget,
  int: scanTarget,
  uint: scanTarget,
  double: scanTarget,
  duration: scanTarget,
  timestamp: scanTarget,
  // cel-go sizes in constant time; cel-js counts a string's code points: charged as a scan.
  size: (args) => (args.length === 1 && typeof args[0] === "string" ? scan(args[0]) : 1),
};

/**
 * What calling `name` on `args` (the receiver, if any, first) costs. `remaining` is what the evaluation may still
 * spend: a cost that needs counting is not counted further once a cheaper part of it is already over.
 */
export function callCost(name: string, args: unknown[], remaining = Infinity): number {
  if (name === "join" && Array.isArray(args[0])) return joinCost(args);
  // The lists extension's reverse(): cel-go's trackListOutputSize, the result's size and its allocation.
  if (name === "reverse" && Array.isArray(args[0])) return callBase + listCreateCost + args[0].length;
  const library = Object.hasOwn(libraryCosts, name) ? libraryCosts[name] : undefined;
  return stringExtensionCost(name, args, remaining) ?? library?.(args) ?? 1;
}

const isSequence = (v: unknown) => typeof v === "string" || Array.isArray(v) || v instanceof Uint8Array;

/** `+`: concatenating strings, bytes or lists costs a tenth of their sizes together; anything else 1. */
export function additionCost(left: unknown, right: unknown): number {
  return isSequence(left) && isSequence(right) ? Math.ceil((sizeOf(left) + sizeOf(right)) * stringFactor) : 1;
}

/** Comparing two values (==, !=, <, ...) costs a tenth of the smaller size, as cel-go charges it. */
export function comparisonCost(left: unknown, right: unknown): number {
  return Math.ceil(Math.min(sizeOf(left), sizeOf(right)) * stringFactor);
}

const isContainer = (v: unknown): v is object => typeof v === "object" && v !== null && !(v instanceof Date);

const isText = (v: unknown): v is string | Uint8Array => typeof v === "string" || v instanceof Uint8Array;

/** The pairs of items cel-js's deep equality compares in two lists or maps of the same size; none otherwise. */
function* itemPairs(x: unknown, y: unknown): Generator<[unknown, unknown]> {
  if (x === y) return;
  if (Array.isArray(x) && Array.isArray(y) && x.length === y.length)
    for (const [i, item] of x.entries()) yield [item, y[i]];
  if (x instanceof Map && y instanceof Map && x.size === y.size) for (const [k, v] of x) yield [v, y.get(k)];
}

/**
 * What cel-js's deep equality may do on two values, counted without comparing them: one per value pair, plus
 * the characters of strings (and bytes) of equal length, which are compared one by one. Stops counting at cap.
 */
function equalityWork(x: unknown, y: unknown, cap: number): number {
  if (isText(x) && isText(y)) return 1 + (x.length === y.length ? x.length : 0);
  let work = 1;
  for (const [a, b] of itemPairs(x, y)) {
    if (work >= cap) break;
    work += equalityWork(a, b, cap - work);
  }
  return work;
}

/**
 * == and !=: cel-go's figure (a tenth of the smaller size), or, where cel-js compares lists and maps element by
 * element (strings inside them character by character), a tenth of that work when it is more.
 */
export function equalityCost(left: unknown, right: unknown, remaining = Infinity): number {
  const celGo = comparisonCost(left, right);
  if (!isContainer(left) || !isContainer(right)) return celGo;
  return Math.max(celGo, Math.ceil(equalityWork(left, right, remaining / stringFactor + 1) * stringFactor));
}

/** `in`: cel-go charges the size of a list (1 for a map); cel-js compares each item as == does. */
export function membershipCost(value: unknown, collection: unknown, remaining = Infinity): number {
  if (!Array.isArray(collection)) return 1;
  if (!isContainer(value) && typeof value !== "string") return collection.length;
  const cap = remaining / stringFactor + 1;
  let work = 0;
  for (let i = 0; i < collection.length && work < cap; i++) work += equalityWork(value, collection[i], cap - work);
  return collection.length + Math.ceil(work * stringFactor);
}

export { sizeOf };
