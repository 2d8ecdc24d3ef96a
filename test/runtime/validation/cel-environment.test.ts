// The Kubernetes CEL library as crdgen evaluates it: regular expressions are RE2 (as Go's regexp on the API
// server), never JS RegExp, and replace() follows Go's strings.Replace.
import { test } from "node:test";
import assert from "node:assert/strict";
import { validateResource } from "@crdgen/runtime/validation";
import { resource, versionValidation, withSpec } from "./support.js";

const nameRule = (rule: string) =>
  versionValidation(withSpec({ properties: { name: { type: "string" } }, "x-kubernetes-validations": [{ rule }] }));
const check = (rule: string, name: string) => validateResource(resource({ name }), nameRule(rule));

test("matches() accepts RE2's (?i) flag, which JS RegExp rejects, in the method and the global form", () => {
  for (const rule of [
    "self.name.matches('(?i)^[a-z]+$')",
    "matches(self.name, '(?i)^[a-z]+$')",
    "!self.name.matches('(?i)[^a-z]')",
    "[self.name].all(n, n.matches('(?i)^[a-z]+$'))",
    "[self.name].map(n, !n.matches('(?i)^[a-z]+$')) == [false]",
  ]) {
    const upper = check(rule, "ABC");
    assert.deepEqual(upper.skipped, [], `${rule} is evaluated, not skipped`);
    assert.deepEqual(upper.errors, [], `${rule} matches "ABC" case-insensitively`);
    assert.deepEqual(
      check(rule, "ab1").errors.map((e) => [e.field, e.message]),
      [["spec", `failed rule: ${rule}`]],
    );
  }
});

test("matches() and find() reject what RE2 rejects (backreferences, lookahead) with Go's error", () => {
  for (const [pattern, error] of [
    [String.raw`(a)\1`, "error parsing regexp: invalid escape sequence: `\\1`"],
    ["(?=a)", "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"],
  ] as const) {
    for (const call of ["matches", "find"]) {
      const rule = `self.name.${call}(${JSON.stringify(pattern)}) == self.name`;
      const result = check(rule, "aa");
      assert.deepEqual(
        result.errors.map((e) => e.message),
        [`${error} evaluating rule: ${rule}`],
        `${call}(${pattern}) is compiled by RE2, which refuses it`,
      );
    }
  }
});

test("a pattern that backtracks exponentially in JS RegExp runs in linear time under RE2", () => {
  // JS RegExp needs about 2^40 steps for this input and pattern; RE2 scans the 41 characters once.
  const hostile = `${"a".repeat(40)}!`;
  const result = check("self.name.matches('^(a+)+$') || self.name.findAll('(a|aa)+$').size() > 0", hostile);
  assert.deepEqual(
    result.errors.map((e) => e.field),
    ["spec"],
  );
});

test("replace() follows Go's strings.Replace, including an empty old string and a count", () => {
  for (const [input, call, expected] of [
    ["ab", "replace('', '-')", "-a-b-"],
    ["ab", "replace('', '-', 2)", "-a-b"],
    ["h😀i", "replace('', '.')", ".h.😀.i."], // an empty old string matches around runes, not UTF-16 units
    ["aaaa", "replace('a', 'bb', 3)", "bbbbbba"],
    ["aaaa", "replace('aa', 'a')", "aa"], // matches do not overlap
    ["abc", "replace('b', 'x', 0)", "abc"],
    ["abc", "replace('b', 'x', -1)", "axc"],
  ]) {
    const rule = `self.name.${call} == ${JSON.stringify(expected)}`;
    assert.deepEqual(check(rule, input!).errors, [], `${JSON.stringify(input)}.${call} is ${JSON.stringify(expected)}`);
  }
});

test("size() of a string counts code points, surrogate pairs as one and a lone surrogate as one", () => {
  for (const [name, size] of [
    ["héllo", 5],
    ["a😀b", 3],
    ["😀😀", 2],
    ["a\uD800b", 3],
    ["", 0],
  ] as const) {
    const rule = `self.name.size() == ${size} && size(self.name) == ${size}`;
    assert.deepEqual(check(rule, name).errors, [], `${JSON.stringify(name)} has ${size}`);
  }
});

test("reverse() is the lists extension's, as on the API server; a string's reverse() is not evaluated", () => {
  const list = versionValidation(
    withSpec({
      properties: { list: { type: "array", items: { type: "integer" } } },
      "x-kubernetes-validations": [{ rule: "self.list.reverse() == self.list", message: "palindrome" }],
    }),
  );
  assert.deepEqual(validateResource(resource({ list: [1, 2, 1] }), list).errors, []);
  assert.deepEqual(
    validateResource(resource({ list: [1, 2] }), list).errors.map((e) => e.message),
    ["palindrome"],
  );
  // kube-apiserver 1.37 refuses this rule in a CRD: "found no matching overload for 'reverse' applied to 'string.()'".
  const skipped = check("self.name.reverse() != ''", "abc").skipped.map((s) => s.reason);
  assert.deepEqual(skipped, ["the CEL library cannot type-check it: no such overload: list<dyn> != string"]);
});
