// The API server's CEL cost limits, client-side: one evaluation may cost at most PerCallLimit (1,000,000), all
// the rules of one object together RuntimeCELCostBudget (10,000,000); going over either is the server's error
// and stops every further rule, never a hang.
import { test } from "node:test";
import assert from "node:assert/strict";
import { validateResource } from "@crdgen/runtime/validation";
import { perCallCostLimit } from "#runtime/validation/cel-cost.js";
import { compileRule, type CompiledRule } from "#runtime/validation/cel-rules.js";
import { resource, versionValidation, withSpec } from "./support.js";

// Each inner step of this rule costs 6 under cel-go's model (loop condition and accumulator 3, two identifiers,
// one comparison; `||` stops at the first operand), so n items cost about 6·n².
const pairs = "self.all(x, self.all(y, x == y || x != y))";
const pairsOf = (field: string) => pairs.replaceAll("self", `self.${field}`);
const letters = (n: number) => Array<string>(n).fill("a");
const perCallError = (rule: string) =>
  `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${rule}`;
const budgetError = "validation failed due to running out of cost budget, no further validation rules will be run";

test("a rule over the per-call cost limit fails with the API server's error and no further rule runs", () => {
  const version = versionValidation(
    withSpec({
      properties: { grid: { type: "array", items: { type: "string" } } },
      "x-kubernetes-validations": [
        { rule: pairsOf("grid") },
        { rule: "false", message: "a later rule, not run once the limit stopped validation" },
      ],
    }),
  );
  // 300 items cost about 540,000: under the limit, so the second rule runs.
  assert.deepEqual(
    validateResource(resource({ grid: letters(300) }), version).errors.map((e) => e.message),
    ["a later rule, not run once the limit stopped validation"],
  );
  // 2,000 items would cost about 24,000,000 (and 4,000,000 loop steps): stopped at the limit.
  const over = validateResource(resource({ grid: letters(2000) }), version);
  assert.deepEqual(
    over.errors.map((e) => [e.field, e.reason, e.message]),
    [["spec", "FieldValueInvalid", perCallError(pairsOf("grid"))]],
  );
});

test("the limit holds where cel-js would swallow the error: behind || and inside exists()", () => {
  const version = versionValidation(
    withSpec({
      properties: { grid: { type: "array", items: { type: "string" } } },
      "x-kubernetes-validations": [
        { rule: `${pairsOf("grid")} || true`, message: "or" },
        { rule: `[1, 2].exists(i, ${pairsOf("grid")})` },
      ],
    }),
  );
  const result = validateResource(resource({ grid: letters(2000) }), version);
  assert.deepEqual(
    result.errors.map((e) => e.message),
    [perCallError("or")],
    "the first rule is stopped (named by its message) and stops the second",
  );
});

test("the per-object budget: rules under the per-call limit run until together they spend 10,000,000", () => {
  // As in test/fixtures/validation/bounds.yaml, which the API server accepts: a rule on list items could not
  // overspend (its estimated cost times maxItems must stay under 10,000,000), twelve rules on one node can.
  const rule = "self.list.all(i, self.a != self.b)";
  const rules = Array.from({ length: 12 }, (_, i) => ({ rule, message: `long strings compared ${i + 1}` }));
  const version = versionValidation(
    withSpec({
      properties: {
        budget: {
          type: "object",
          properties: {
            a: { type: "string" },
            b: { type: "string" },
            list: { type: "array", items: { type: "integer" } },
          },
          "x-kubernetes-validations": rules,
        },
      },
    }),
  );
  // Each comparison costs 2,000 (a tenth of the shorter string), each rule about 883,000 on 440 items: eleven
  // rules fit in the budget, the twelfth does not.
  const budget = (n: number) => ({ a: "a".repeat(20_000), b: "a".repeat(19_999), list: Array<number>(n).fill(0) });
  assert.deepEqual(
    validateResource(resource({ budget: budget(440) }), version).errors.map((e) => [e.field, e.schemaPath, e.message]),
    [["spec.budget", "/properties/spec/properties/budget/x-kubernetes-validations/11/rule", budgetError]],
  );
  assert.deepEqual(validateResource(resource({ budget: budget(300) }), version).errors, []);
});

test("a messageExpression is metered too, against the same budget", () => {
  const version = versionValidation(
    withSpec({
      properties: { grid: { type: "array", items: { type: "string" } } },
      "x-kubernetes-validations": [{ rule: "false", messageExpression: `${pairsOf("grid")} ? 'a' : 'b'` }],
    }),
  );
  assert.deepEqual(
    validateResource(resource({ grid: letters(2000) }), version).errors.map((e) => e.message),
    [
      `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(`${pairsOf("grid")} ? 'a' : 'b'`)}`,
    ],
  );
  assert.deepEqual(
    validateResource(resource({ grid: letters(3) }), version).errors.map((e) => e.message),
    ["a"],
  );
});

test("cost follows the size of strings: contains() on long strings in a loop is stopped", () => {
  const version = versionValidation(
    withSpec({
      properties: { text: { type: "string" }, words: { type: "array", items: { type: "string" } } },
      "x-kubernetes-validations": [{ rule: "self.words.all(w, self.text.contains(w))" }],
    }),
  );
  // contains() costs ceil(len/10) · ceil(sub/10): 8,000 · 100 per word here, so one word fits and two do not.
  const spec = { text: "a".repeat(80_000), words: ["a".repeat(1000)] };
  assert.deepEqual(validateResource(resource(spec), version).errors, []);
  const result = validateResource(resource({ ...spec, words: Array<string>(2).fill("a".repeat(1000)) }), version);
  assert.deepEqual(
    result.errors.map((e) => e.message),
    [perCallError("self.words.all(w, self.text.contains(w))")],
  );
});

// Calls are charged what cel-go's strings extension charges (the size of the result, among others), before they
// run: a result over the limit is never built. Before, replace() was charged a fifth of its input, after it ran:
// the first rule took 9 s and 450 MB on 20,000 characters and passed; the second with .reverse() after it (which
// the API server does not have for strings) 17 s and 2.4 GB on 12,000. kube-apiserver 1.37 takes 2.1 s and
// 1.3 s on these two and admits them.
const textRules = (...rules: string[]) =>
  versionValidation(
    withSpec({
      properties: {
        text: { type: "string", "x-kubernetes-validations": rules.map((rule) => ({ rule })) },
        words: { type: "array", items: { type: "string" } },
      },
      "x-kubernetes-validations": [
        { rule: "!has(self.words) || self.words.map(w, self.text).join() != ''", message: "joined" },
      ],
    }),
  );
const celErrors = (version: ReturnType<typeof textRules>, spec: unknown) =>
  validateResource(resource(spec), version).errors.map((e) => [e.field, e.message]);

test("a call whose result would be over the limit is refused before it is built, with the per-call error", () => {
  const squared = "self.replace('', self).size() > 0";
  const doubled = "self.replace('', self+self).size() > 0";
  assert.deepEqual(celErrors(textRules(squared), { text: "a".repeat(20_000) }), [["spec.text", perCallError(squared)]]);
  assert.deepEqual(celErrors(textRules(doubled), { text: "a".repeat(12_000) }), [["spec.text", perCallError(doubled)]]);
  // join() of a string repeated per list item: 2,000 × 100,000 characters.
  assert.deepEqual(celErrors(textRules(), { text: "a".repeat(100_000), words: letters(2000) }), [
    ["spec", perCallError("joined")],
  ]);
  // The same rules on short strings run and pass.
  assert.deepEqual(celErrors(textRules(squared, doubled), { text: "abc", words: letters(3) }), []);
});

test("replace() costs cel-go's figure: 1 + a tenth of target × needle + the size of its result", () => {
  // 'a' × n with every 'a' doubled: 1 + ceil(n/10) + 2n, and 1 for self (!= with '' costs 0). That is 999,999 for
  // n = 476,189 and 1,000,001 for one more.
  const rule = "self.replace('a', 'bb') != ''";
  assert.deepEqual(celErrors(textRules(rule), { text: "a".repeat(476_189) }), []);
  assert.deepEqual(celErrors(textRules(rule), { text: "a".repeat(476_190) }), [["spec.text", perCallError(rule)]]);
});

test("== and in on lists and maps are charged the element-by-element comparison cel-js makes", () => {
  // cel-go charges a tenth of the smaller size: 1 for one-item lists, whatever the item. cel-js compares the
  // items, here strings of a million characters: each comparison costs 100,000 + 1 here, so ten fit, not 100,000.
  const item = "a".repeat(1_000_000);
  const version = versionValidation(
    withSpec({
      "x-kubernetes-preserve-unknown-fields": true,
      "x-kubernetes-validations": [
        { rule: "!has(self.a) || self.numbers.all(n, self.a == self.b)", message: "==" },
        { rule: "!has(self.m) || self.numbers.all(n, self.m in [self.n])", message: "in" },
      ],
    }),
  );
  const numbers = Array<number>(100_000).fill(0);
  assert.deepEqual(celErrors(version, { numbers, a: [item], b: [item] }), [["spec", perCallError("==")]]);
  assert.deepEqual(celErrors(version, { numbers, m: { x: [item] }, n: { x: [item] } }), [["spec", perCallError("in")]]);
  // Ten items compare within the limit.
  const few = numbers.slice(0, 9);
  assert.deepEqual(celErrors(version, { numbers: few, a: [item], b: [item], m: { x: [item] }, n: { x: [item] } }), []);
});

test("string functions cost what cel-go's strings extension charges (its TestStringCostTracking)", () => {
  // cel-go ext/strings_test.go, version 5; its reverse() of a string is not in the API server's library.
  const upstream: [string, number][] = [
    [`"hello world".charAt(0)`, 4],
    [`"hello world".indexOf("world")`, 7],
    [`"hello world".lastIndexOf("o")`, 3],
    [`"HELLO".lowerAscii()`, 7],
    [`"hello".upperAscii()`, 7],
    [`"hello world".replace("world", "CEL")`, 16],
    [`"A".replace("", "AAAAAAAAAA").replace("", "AAAAAAAAAA")`, 268],
    [`"a,b,c,d,e".split(",")`, 17],
    [`"hello world".substring(0, 5)`, 8],
    [`["a", "b", "c", "d", "e"].join("-")`, 21],
    [`"  hello  ".trim()`, 7],
  ];
  const costs = upstream.map(([expression]) => {
    const compiled = compileRule({ rule: expression });
    assert.ok(compiled.supported, expression);
    return [expression, compiled.run({}).cost];
  });
  assert.deepEqual(costs, upstream);
});

test("replace() growing exponentially is refused before the string that would cross the limit is built", () => {
  // cel-go's TestStringCostLimitEnforced: six chained replaces would make 3,528,481 characters.
  const grow = `"A"${`.replace("", "AAAAAAAAAA")`.repeat(6)}.size() > 0`;
  const evaluation = (compileRule({ rule: grow }) as Extract<CompiledRule, { supported: true }>).run({});
  assert.deepEqual([evaluation.costLimitExceeded, evaluation.cost], [true, perCallCostLimit + 1]);
});

test("string() of bytes and bytes() of a string are charged a tenth per byte, as cel-go charges them", () => {
  const version = versionValidation(
    withSpec({
      properties: { data: { type: "string", format: "byte" }, numbers: { type: "array", items: { type: "integer" } } },
      "x-kubernetes-validations": [{ rule: "self.numbers.all(n, string(self.data) != '')", message: "decoded" }],
    }),
  );
  // 750,000 bytes decoded per item: 75,000 each and 5 for the step, so thirteen items fit; 100,000 did, at 1 each.
  const data = Buffer.alloc(750_000, "a").toString("base64");
  assert.deepEqual(celErrors(version, { data, numbers: Array<number>(13).fill(0) }), []);
  assert.deepEqual(celErrors(version, { data, numbers: Array<number>(100_000).fill(0) }), [
    ["spec", perCallError("decoded")],
  ]);
});

test("conversions that parse a string (int, double, duration, timestamp) are charged a scan of it", () => {
  // cel-go charges a conversion 1; cel-js parses the whole string. On a million digits, 100,000 parses ran for
  // minutes; at a tenth per character, the tenth parse crosses the limit.
  const version = versionValidation(
    withSpec({
      properties: { text: { type: "string" }, numbers: { type: "array", items: { type: "integer" } } },
      "x-kubernetes-validations": [
        { rule: "!self.text.startsWith('1') || self.numbers.all(n, double(self.text) > 0.0)", message: "double" },
        { rule: "!self.text.endsWith('s') || self.numbers.all(n, duration(self.text) >= duration('0s'))" },
      ],
    }),
  );
  const numbers = Array<number>(100_000).fill(0);
  const digits = "1" + "0".repeat(1_000_000);
  assert.deepEqual(celErrors(version, { text: digits, numbers }), [["spec", perCallError("double")]]);
  const seconds = "0".repeat(1_000_000) + "s";
  assert.deepEqual(celErrors(version, { text: seconds, numbers }), [
    ["spec", perCallError("!self.text.endsWith('s') || self.numbers.all(n, duration(self.text) >= duration('0s'))")],
  ]);
  assert.deepEqual(celErrors(version, { text: "20s", numbers: [1, 2] }), []);
});
