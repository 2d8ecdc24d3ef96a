// Label selectors, judged by apimachinery's own cases: ports of pkg/labels/selector_test.go (TestSelectorParse,
// TestDeterministicParse, TestEverything, TestSelectorMatches, TestSetMatches, TestSetIsEmpty,
// TestRequirementConstructor, TestToString, TestRequirementSelectorMatching, TestSetSelectorParser) and of
// pkg/apis/meta/v1/helpers_test.go (TestLabelSelectorAsSelector), through the public API (the lexer and
// Requirement constructor are not exported: their cases go through parseLabelSelector and labelSelectorFromSpec).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  labelSelectorFromSet,
  labelSelectorFromSpec,
  parseLabelSelector,
  toLabelSelector,
  type LabelSelector,
  type LabelSelectorOperator,
} from "@crdgen/runtime/cache";

/** A selector's requirements as [key, operator, values] rows. */
const rows = (s: LabelSelector) => s.requirements.map((r) => [r.key, r.operator, [...r.values]]);
type Row = [string, LabelSelectorOperator, string[]];

test("TestSelectorParse: good selectors print back as written, spaces aside; bad ones throw", () => {
  for (const good of ["x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x", "x>1", "x>1,z<5"]) {
    assert.equal(parseLabelSelector(good).toString(), good.replaceAll(" ", ""), good);
  }
  for (const bad of ["x=a||y=b", "x==a==b", "!x=a", "x<a"]) assert.throws(() => parseLabelSelector(bad), Error, bad);
});

test("TestDeterministicParse: the order of the requirements does not change the selector", () => {
  assert.equal(parseLabelSelector("x=a,a=x").toString(), parseLabelSelector("a=x,x=a").toString());
  assert.equal(parseLabelSelector("x=a,a=x").toString(), "a=x,x=a");
});

test("TestEverything / TestSetIsEmpty: no selector and an empty set match everything and are empty", () => {
  for (const s of [toLabelSelector(undefined), labelSelectorFromSet({}), parseLabelSelector("")]) {
    assert.equal(s.matches({ x: "y" }), true);
    assert.equal(s.empty(), true);
  }
});

test("TestSelectorMatches", () => {
  const cases: Array<[string, Record<string, string>, boolean]> = [
    ["", { x: "y" }, true],
    ["x=y", { x: "y" }, true],
    ["x=y,z=w", { x: "y", z: "w" }, true],
    ["x!=y,z!=w", { x: "z", z: "a" }, true],
    ["notin=in", { notin: "in" }, true], // in and notin as a key and a value
    ["x", { x: "z" }, true],
    ["!x", { y: "z" }, true],
    ["x>1", { x: "2" }, true],
    ["x<1", { x: "0" }, true],
    ["x=z", {}, false],
    ["x=y", { x: "z" }, false],
    ["x=y,z=w", { x: "w", z: "w" }, false],
    ["x!=y,z!=w", { x: "z", z: "w" }, false],
    ["x", { y: "z" }, false],
    ["!x", { x: "z" }, false],
    ["x>1", { x: "0" }, false],
    ["x<1", { x: "2" }, false],
  ];
  const labelset = { foo: "bar", baz: "blah" };
  cases.push(
    ["foo=bar", labelset, true],
    ["baz=blah", labelset, true],
    ["foo=bar,baz=blah", labelset, true],
    ["foo=blah", labelset, false],
    ["baz=bar", labelset, false],
    ["foo=bar,foobar=bar,baz=blah", labelset, false],
  );
  for (const [selector, labels, want] of cases)
    assert.equal(parseLabelSelector(selector).matches(labels), want, `${selector} on ${JSON.stringify(labels)}`);
});

test("TestSetMatches: a selector from a set matches the labels holding that set", () => {
  const labelset = { foo: "bar", baz: "blah" };
  const sets: Array<Record<string, string>> = [{}, { foo: "bar" }, { baz: "blah" }, { foo: "bar", baz: "blah" }];
  for (const set of sets) assert.equal(labelSelectorFromSet(set).matches(labelset), true, JSON.stringify(set));
});

test("TestRequirementConstructor: value counts per operator, integers for > and <, keys of at most 253 + 63", () => {
  const spec = (key: string, operator: string, values?: string[]) => () =>
    labelSelectorFromSpec({ matchExpressions: [{ key, operator, ...(values ? { values } : {}) }] });
  assert.throws(spec("x", "In"), /at least one value/);
  assert.throws(spec("x", "NotIn", []), /at least one value/);
  for (const ok of [
    spec("x", "In", ["foo"]),
    spec("x", "NotIn", ["foo"]),
    spec("x", "Exists"),
    spec("x", "DoesNotExist"),
    spec("1foo", "In", ["bar"]),
    spec("1234", "In", ["bar"]),
  ])
    assert.doesNotThrow(ok);
  assert.doesNotThrow(() => parseLabelSelector("y>1"));
  assert.doesNotThrow(() => parseLabelSelector("z<6"));
  assert.throws(() => parseLabelSelector("foo>bar"), /integer/);
  assert.throws(() => parseLabelSelector("barz<blah"), /integer/);
  assert.throws(() => parseLabelSelector("a".repeat(254)), /invalid label key/); // a name part over 63
});

test("TestToString: In and NotIn values sorted, == kept as written, an empty value as ()", () => {
  const cases: Array<[string, string]> = [
    ["x in (def,abc),y notin (jkl),z", "x in (abc,def),y notin (jkl),z"],
    ["x notin (abc,def),y!=jkl,!z", "x notin (abc,def),y!=jkl,!z"],
    ["x notin (abc),y in (mno,jkl),z notin ()", "x notin (abc),y in (jkl,mno),z notin ()"],
    ["x=abc,y==jkl,z!=a,z", "x=abc,y==jkl,z!=a,z"],
    ["x>2,y<8,z", "x>2,y<8,z"],
  ];
  for (const [input, want] of cases) assert.equal(parseLabelSelector(input).toString(), want, input);
  // The same requirements from a spec (NewRequirement's path) print the same.
  const fromSpec = labelSelectorFromSpec({
    matchExpressions: [
      { key: "x", operator: "In", values: ["def", "abc"] },
      { key: "z", operator: "Exists" },
      { key: "y", operator: "NotIn", values: ["jkl"] },
    ],
  });
  assert.equal(fromSpec.toString(), "x in (abc,def),y notin (jkl),z");
});

test("TestRequirementSelectorMatching", () => {
  const cases: Array<[Record<string, string>, string, boolean]> = [
    [{ x: "foo", y: "baz" }, "x in (foo),y notin (alpha)", true],
    [{ x: "foo", y: "baz" }, "x in (foo),y in (alpha)", false],
    [{ y: "" }, "x notin (),y", true],
    [{ y: "" }, "!x,y", true],
    [{ y: "" }, "x notin (),!y", false],
    [{ y: "baz" }, "x in ()", false],
    [{ z: "2" }, "z>1", true],
    [{ z: "v2" }, "z>1", false],
  ];
  for (const [labels, selector, want] of cases)
    assert.equal(parseLabelSelector(selector).matches(labels), want, `${selector} on ${JSON.stringify(labels)}`);
});

test("TestSetSelectorParser: what parses, into which requirements (sorted by key), and what does not", () => {
  const good: Array<[string, Row[]]> = [
    ["", []],
    ["\rx", [["x", "exists", []]]],
    ["this-is-a-dns.domain.com/key-with-dash", [["this-is-a-dns.domain.com/key-with-dash", "exists", []]]],
    [
      "this-is-another-dns.domain.com/key-with-dash in (so,what)",
      [["this-is-another-dns.domain.com/key-with-dash", "in", ["so", "what"]]],
    ],
    [
      "0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)",
      [["0.1.2.domain/99", "notin", ["10.10.100.1", "tick.tack.clock"]]],
    ],
    ["foo  in\t (abc)", [["foo", "in", ["abc"]]]],
    ["x notin\n (abc)", [["x", "notin", ["abc"]]]],
    ["x  notin\t\t\t(abc,def)", [["x", "notin", ["abc", "def"]]]],
    ["x in (abc,def)", [["x", "in", ["abc", "def"]]]],
    ["x in (abc,)", [["x", "in", ["", "abc"]]]],
    ["x in ()", [["x", "in", [""]]]],
    [
      "x notin (abc,,def),bar,z in (),w",
      [
        ["bar", "exists", []],
        ["w", "exists", []],
        ["x", "notin", ["", "abc", "def"]],
        ["z", "in", [""]],
      ],
    ],
    [
      "x,y in (a)",
      [
        ["x", "exists", []],
        ["y", "in", ["a"]],
      ],
    ],
    ["x=a", [["x", "=", ["a"]]]],
    ["x>1", [["x", "gt", ["1"]]]],
    ["x<7", [["x", "lt", ["7"]]]],
    [
      "x=a,y!=b",
      [
        ["x", "=", ["a"]],
        ["y", "!=", ["b"]],
      ],
    ],
    [
      "x=a,y!=b,z in (h,i,j)",
      [
        ["x", "=", ["a"]],
        ["y", "!=", ["b"]],
        ["z", "in", ["h", "i", "j"]],
      ],
    ],
    ["x notin ( )", [["x", "notin", [""]]]],
    ["x notin (, a)", [["x", "notin", ["", "a"]]]],
    ["a ", [["a", "exists", []]]],
    ["a in (x,y,notin, z,in)", [["a", "in", ["in", "notin", "x", "y", "z"]]]], // in and notin as values
  ];
  for (const [input, want] of good) assert.deepEqual(rows(parseLabelSelector(input)), want, JSON.stringify(input));
  const bad = [
    "x=a||y=b",
    "x,,y",
    ",x,y",
    "x nott in (y)",
    "a in (xyz),",
    "a in (xyz)b notin ()",
    "a in (xyz abc)", // no comma
    "a notin(", // bad formed
    "a (", // cpar
    "(", // opar
  ];
  for (const input of bad) assert.throws(() => parseLabelSelector(input), Error, JSON.stringify(input));
});

test("> and < compare 64-bit integers as strconv.ParseInt reads them: signs, leading zeros, no precision lost", () => {
  assert.equal(parseLabelSelector("x>+1").matches({ x: "2" }), true);
  assert.equal(parseLabelSelector("x<-1").matches({ x: "-2" }), true);
  assert.equal(parseLabelSelector("x>1").matches({ x: "007" }), true);
  // 2^53 + 1 > 2^53: equal as JavaScript numbers.
  assert.equal(parseLabelSelector("x>9007199254740992").matches({ x: "9007199254740993" }), true);
  assert.equal(parseLabelSelector("x<9223372036854775807").matches({ x: "9223372036854775808" }), false);
  assert.throws(() => parseLabelSelector("x>9223372036854775808"), /integer/); // over int64
  assert.equal(parseLabelSelector("x>1").matches({ x: "1.5" }), false);
});

test("only space, tab, CR and LF separate tokens, as apimachinery's lexer reads them", () => {
  assert.deepEqual(rows(parseLabelSelector(" \t\r\nx\n=\ta ")), [["x", "=", ["a"]]]);
  assert.throws(() => parseLabelSelector("x=\va"), /invalid label value/);
  assert.throws(() => parseLabelSelector("\u00a0x"), /invalid label key/);
});

test("TestLabelSelectorAsSelector: matchLabels and matchExpressions, sorted by key; bad operators and values throw", () => {
  assert.equal(labelSelectorFromSpec({}).empty(), true);
  assert.equal(labelSelectorFromSpec({ matchLabels: { foo: "bar" } }).toString(), "foo=bar");
  assert.equal(
    labelSelectorFromSpec({ matchExpressions: [{ key: "foo", operator: "In", values: ["bar", "baz"] }] }).toString(),
    "foo in (bar,baz)",
  );
  const both = labelSelectorFromSpec({
    matchLabels: { foo: "bar" },
    matchExpressions: [{ key: "baz", operator: "In", values: ["qux", "norf"] }],
  });
  assert.equal(both.toString(), "baz in (norf,qux),foo=bar");
  assert.equal(both.matches({ foo: "bar", baz: "qux" }), true);
  assert.equal(both.matches({ foo: "bar", baz: "x" }), false);
  assert.throws(() => labelSelectorFromSpec({ matchExpressions: [{ key: "foo", operator: "foo" }] }), /operator/);
  assert.throws(
    () => labelSelectorFromSpec({ matchExpressions: [{ key: "foo", operator: "Exists", values: ["qux", "norf"] }] }),
    /no values/,
  );
  // An operator named like an Object.prototype member is no operator either.
  assert.throws(() => labelSelectorFromSpec({ matchExpressions: [{ key: "foo", operator: "toString" }] }), /operator/);
});

test("a selector of every clause kind matches and refuses label by label (a missing label fails in, passes notin)", () => {
  const s = parseLabelSelector(" a=b, c!=d ,e in (x, y),f notin (z),g,!h,n>3");
  assert.equal(s.requirements.length, 7);
  const base = { a: "b", e: "y", g: "", n: "4" };
  assert.equal(s.matches(base), true);
  assert.equal(s.matches({ ...base, a: "B" }), false);
  assert.equal(s.matches({ ...base, c: "d" }), false);
  assert.equal(s.matches({ ...base, e: "q" }), false);
  assert.equal(s.matches({ a: "b", g: "", n: "4" }), false);
  assert.equal(s.matches({ ...base, f: "z" }), false);
  assert.equal(s.matches({ ...base, f: "w" }), true);
  assert.equal(s.matches({ a: "b", e: "x", n: "4" }), false);
  assert.equal(s.matches({ ...base, h: "1" }), false);
  assert.equal(s.matches({ ...base, n: "3" }), false);
  assert.equal(parseLabelSelector("example.com/tier in (web)").matches({ "example.com/tier": "web" }), true);
  assert.equal(parseLabelSelector("x in (a,a)").toString(), "x in (a)");
  for (const bad of ["a in (x y)", "=b", "a b", "a in x", "a>x", "a,", "-bad-=x", "a=b c", "a=(x)"])
    assert.throws(() => parseLabelSelector(bad), Error, bad);
});
