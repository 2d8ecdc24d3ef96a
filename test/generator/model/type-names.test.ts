// assignTypeNames: every nested object and enum gets a name from its path, array items in the singular, unique in
// the module, and stable when fields are added elsewhere.
import { test } from "node:test";
import assert from "node:assert/strict";
import { normalizeSchema } from "../../../generator/model/normalize-schema.js";
import { assignTypeNames, pascalSegment, singularSegment } from "../../../generator/model/type-names.js";

const node = (raw: unknown) =>
  normalizeSchema(raw, "/openAPIV3Schema", { file: "crd.yaml", documentIndex: 0, warnings: [] });
const object = (properties: Record<string, unknown>) => ({ type: "object", properties });
const list = (items: unknown) => ({ type: "array", items });
const leaf = object({ name: { type: "string" } });

/** The nested names of a kind Pod with this spec, in declaration order. */
const specNames = (spec: Record<string, unknown>, reserved?: ReadonlySet<string>) =>
  assignTypeNames("Pod", node(object({ spec: object(spec) })), reserved).exported;

test("a list's items are named in the singular, and so is every type below them", () => {
  assert.deepEqual(specNames({ volumes: list(object({ source: leaf })) }), [
    "PodSpec",
    "PodSpecVolume",
    "PodSpecVolumeSource",
  ]);
  assert.deepEqual(specNames({ policies: list(leaf), addresses: list(leaf), statuses: list(leaf) }), [
    "PodSpec",
    "PodSpecPolicy",
    "PodSpecAddress",
    "PodSpecStatus",
  ]);
});

test("an enum of list items is named in the singular and exports its values under that name", () => {
  assert.deepEqual(specNames({ protocols: list({ type: "string", enum: ["TCP", "UDP"] }) }), [
    "PodSpec",
    "PodSpecProtocol",
    "PodSpecProtocolValues",
  ]);
});

test("a list of lists names its innermost items with the singular of the outer key, once", () => {
  assert.deepEqual(specNames({ grids: list(list(leaf)) }), ["PodSpec", "PodSpecGrid"]);
  assert.deepEqual(specNames({ addresses: list(list(leaf)) }), ["PodSpec", "PodSpecAddress"]);
});

test("a list beside a field named like its singular keeps the plural, whichever comes first", () => {
  const expected = ["PodSpecSource", "PodSpecSources", "PodSpecSourcesHelm"];
  const sourceFirst = specNames({ source: leaf, sources: list(object({ helm: leaf })) });
  const sourcesFirst = specNames({ sources: list(object({ helm: leaf })), source: leaf });
  assert.deepEqual([...sourceFirst].sort(), ["PodSpec", ...expected]);
  assert.deepEqual([...sourcesFirst].sort(), ["PodSpec", ...expected]);
});

test("a map's values are named after their path, inside a list after its singular", () => {
  assert.deepEqual(specNames({ zones: { type: "object", additionalProperties: leaf } }), [
    "PodSpec",
    "PodSpecZonesValue",
  ]);
  assert.deepEqual(specNames({ regions: list({ type: "object", additionalProperties: leaf }) }), [
    "PodSpec",
    "PodSpecRegionValue",
  ]);
});

test("two paths that meet on one name: the identifier path first in document order keeps it, the next gets a '_'", () => {
  assert.deepEqual(specNames({ a: object({ bC: leaf }), aB: object({ c: leaf }) }), [
    "PodSpec",
    "PodSpecA",
    "PodSpecABC",
    "PodSpecAB",
    "PodSpecAB_C",
  ]);
});

test("keys that are not identifiers keep their word breaks, so they never take their camelCase twin's name", () => {
  const names = specNames({ maxSize: leaf, max_size: leaf, "max-size": leaf });
  assert.deepEqual(names, ["PodSpec", "PodSpecMaxSize", "PodSpecMax_Size", "PodSpec_Max_Size"]);
});

test("adding fields (even a lossy twin before it, or another list) renames no type of another path", () => {
  const before = specNames({ id: leaf, volumes: list(leaf), config: object({ item: leaf }) });
  const after = specNames({
    _id: leaf,
    id: leaf,
    items: list(leaf),
    volumes: list(leaf),
    config: object({ item: leaf, extra: leaf }),
  });
  for (const name of before) assert.ok(after.includes(name), `${name} is still there: ${after.join(", ")}`);
  assert.ok(after.includes("PodSpec_Id"), "the lossy key gets the other name");
});

test("names reserved by the kind's own modules or another kind of the group/version are never taken", () => {
  const root = node(object({ list: leaf, hooks: leaf, spec: object({ promise: leaf }) }));
  assert.deepEqual(assignTypeNames("Pod", root).exported, ["Pod_List", "Pod_Hooks", "PodSpec", "PodSpecPromise"]);
  assert.deepEqual(specNames({ other: leaf }, new Set(["PodSpecOther"])), ["PodSpec", "PodSpec_Other"]);
  // An enum needs its <Name>Values free too.
  const withValues = specNames({ mode: { type: "string", enum: ["a"] } }, new Set(["PodSpecModeValues"]));
  assert.deepEqual(withValues, ["PodSpec", "PodSpec_Mode", "PodSpec_ModeValues"]);
});

test("the same schema always gets the same names, in declaration order: parents before children", () => {
  const schema = object({ spec: object({ volumes: list(object({ source: leaf })), zones: leaf }) });
  const first = assignTypeNames("Pod", node(schema));
  const second = assignTypeNames("Pod", node(schema));
  assert.deepEqual(first.exported, second.exported);
  assert.deepEqual(
    first.declarationOrder.map((n) => first.nameOf.get(n)),
    ["Pod", "PodSpec", "PodSpecVolume", "PodSpecVolumeSource", "PodSpecZones"],
  );
});

test("singularSegment: English plurals of the corpus's list keys, and words that are not plurals", () => {
  const cases: Array<[string, string]> = [
    ["Conditions", "Condition"],
    ["Policies", "Policy"],
    ["Entries", "Entry"],
    ["Addresses", "Address"],
    ["Classes", "Class"],
    ["ContainerStatuses", "ContainerStatus"],
    ["Patches", "Patch"],
    ["Prefixes", "Prefix"],
    ["HostAliases", "HostAlias"],
    ["Resources", "Resource"],
    ["Challenges", "Challenge"],
    ["AllowedUses", "AllowedUse"],
    ["HostIPs", "HostIP"],
    ["Infrastructure_Roles_Secrets", "Infrastructure_Roles_Secret"],
    ["Data", "Data"],
    ["Env", "Env"],
    ["Status", "Status"],
    ["Egress", "Egress"],
    ["Analysis", "Analysis"],
    ["TLS", "TLS"],
    ["Tls", "Tls"],
  ];
  assert.deepEqual(
    cases.map(([plural]) => [plural, singularSegment(plural)]),
    cases,
  );
});

test("pascalSegment: identifiers lossless, other keys broken into words joined by '_'", () => {
  assert.deepEqual(pascalSegment("fooBar"), { text: "FooBar", lossless: true });
  assert.deepEqual(pascalSegment("foo-bar"), { text: "Foo_Bar", lossless: false });
  assert.deepEqual(pascalSegment("$ref"), { text: "Ref", lossless: false });
  assert.deepEqual(pascalSegment("---"), { text: "Field", lossless: false });
});
