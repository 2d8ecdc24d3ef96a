// Type-level tests of generated object types: closed objects, required, optional and nullable fields, enums, records,
// open and embedded objects.
// `npx tsc -b` is the test runner: each @ts-expect-error must meet an error, every other line must compile. Nothing here runs.
import type { GadgetSpec } from "../../../fixtures/schema/closed-and-empty-object/expected/closed-and-empty-object.fixtures.crdgen.dev/v1/gadget.types.js";
import type { ReservationSpec } from "../../../fixtures/schema/nullable/expected/nullable.fixtures.crdgen.dev/v1/reservation.types.js";
import type {
  RolloutSpec,
  RolloutSpecStrategy,
  RolloutSpecStrategyValues,
} from "../../../fixtures/schema/enum-strings/expected/enum-strings.fixtures.crdgen.dev/v1/rollout.types.js";
import type { BucketNotificationSpec } from "../../../fixtures/schema/enum-odd-strings/expected/enum-odd-strings.fixtures.crdgen.dev/v1/bucketnotification.types.js";
import type { VolumeSpec } from "../../../fixtures/schema/enum-mixed/expected/enum-mixed.fixtures.crdgen.dev/v1/volume.types.js";
import type { FirewallRuleSpec } from "../../../fixtures/schema/enum-in-items/expected/enum-in-items.fixtures.crdgen.dev/v1/firewallrule.types.js";
import type { PortMapSpec } from "../../../fixtures/schema/int-or-string/expected/int-or-string.fixtures.crdgen.dev/v1/portmap.types.js";
import type {
  PipelineSpec,
  PipelineSpecConfig,
} from "../../../fixtures/schema/preserve-unknown-fields/expected/preserve-unknown-fields.fixtures.crdgen.dev/v1/pipeline.types.js";
import type { Blob } from "../../../fixtures/schema/preserve-unknown-root/expected/preserve-unknown-root.fixtures.crdgen.dev/v1/blob.types.js";
import type {
  TemplateSpec,
  TemplateSpecConfigMap,
  TemplateSpecResource,
} from "../../../fixtures/schema/embedded-resource/expected/embedded-resource.fixtures.crdgen.dev/v1/template.types.js";
import type { SettingsSpec } from "../../../fixtures/schema/additional-properties/expected/additional-properties.fixtures.crdgen.dev/v1/settings.types.js";
import type { SelectorSpec } from "../../../fixtures/schema/typed-union/expected/typed-union.fixtures.crdgen.dev/v1/selector.types.js";
import type {
  MirrorSpecFooBar,
  MirrorSpecFoo_Bar,
} from "../../../fixtures/schema/name-collisions/expected/name-collisions.fixtures.crdgen.dev/v1/mirror.types.js";
import type { KeySetSpec } from "../../../fixtures/schema/keys-and-reserved-words/expected/keys-and-reserved-words.fixtures.crdgen.dev/v1/keyset.types.js";
import type { Backup as BackupV1 } from "../../../fixtures/schema/multi-version/expected/multi-version.fixtures.crdgen.dev/v1/backup.types.js";
import type { Backup as BackupV1alpha1 } from "../../../fixtures/schema/multi-version/expected/multi-version.fixtures.crdgen.dev/v1alpha1/backup.types.js";
import type { PostgresqlSpecStandby } from "../../../fixtures/schema/required-only-combinators/expected/required-only-combinators.fixtures.crdgen.dev/v1/postgresql.types.js";

/** True only when A and B are the same type. */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the standard type-equality idiom: T only ties the two signatures together
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

export function closedObjectRejectsUnknownKey(): GadgetSpec[] {
  const ok: GadgetSpec = { size: 1, color: "red" };
  // @ts-expect-error a misspelt key of a closed object does not compile
  const typo: GadgetSpec = { size: 1, colr: "red" };
  return [ok, typo];
}

export function bareObjectTypeAdmitsNoKey(): GadgetSpec[] {
  const empty: GadgetSpec = { size: 1, marker: {} };
  // @ts-expect-error the API server prunes every key of a bare `type: object`
  const pruned: GadgetSpec = { size: 1, marker: { kept: true } };
  return [empty, pruned];
}

export function requiredFieldIsRequired(): GadgetSpec[] {
  // @ts-expect-error size is in the schema's required list
  const missing: GadgetSpec = { color: "red" };
  return [missing];
}

export function nullableFieldAcceptsNullAndOthersDoNot(): ReservationSpec[] {
  const nulls: ReservationSpec = {
    owner: "ada",
    until: null,
    room: null,
    seats: null,
    history: [null, { at: "noon" }],
    guests: ["bob", null],
    tags: { a: null },
  };
  const values: ReservationSpec = { owner: "ada", until: "2030-01-01T00:00:00Z", room: { floor: 2 } };
  // @ts-expect-error owner is required and not nullable
  const nullOwner: ReservationSpec = { owner: null, until: null, room: null };
  // @ts-expect-error note is optional, which does not make it nullable
  const nullNote: ReservationSpec = { owner: "ada", until: null, room: null, note: null };
  return [nulls, values, nullOwner, nullNote];
}

export function nullableRequiredFieldIsStillRequired(): ReservationSpec[] {
  // @ts-expect-error until is nullable, which does not make it optional
  const missingUntil: ReservationSpec = { owner: "ada", room: null };
  return [missingUntil];
}

export function enumRejectsValueOutsideUnion(): RolloutSpec[] {
  const ok: RolloutSpec = { strategy: "BlueGreen", logLevel: "warn" };
  // @ts-expect-error "Rolling" is not one of the enum's values
  const wrong: RolloutSpec = { strategy: "Rolling" };
  return [ok, wrong];
}

export function enumValuesArrayMatchesTheUnion(): [true, true] {
  const same: Equal<(typeof RolloutSpecStrategyValues)[number], RolloutSpecStrategy> = true;
  const readonlyTuple: Equal<typeof RolloutSpecStrategyValues, readonly ["RollingUpdate", "Recreate", "BlueGreen"]> =
    true;
  return [same, readonlyTuple];
}

export function enumOfOddStringsKeepsExactLiterals(): BucketNotificationSpec[] {
  const ok: BucketNotificationSpec = {
    event: "s3:ObjectCreated:*",
    operator: "!=",
    postgresVersion: "9.6",
    suffix: "",
  };
  // @ts-expect-error the literal is exact: "s3:ObjectCreated" lacks ":*"
  const truncated: BucketNotificationSpec = { event: "s3:ObjectCreated" };
  // @ts-expect-error "9.6" is a string value, not the number 9.6
  const number: BucketNotificationSpec = { postgresVersion: 9.6 };
  return [ok, truncated, number];
}

export function enumOfNumbersBooleansAndNull(): VolumeSpec[] {
  const ok: VolumeSpec = { sizeGi: 100, ratio: -1, replicas: null, enabled: true, mode: 0 };
  // @ts-expect-error 2 is not one of 1, 3, 5, null
  const replicas: VolumeSpec = { replicas: 2 };
  // @ts-expect-error "auto" is allowed, "manual" is not
  const mode: VolumeSpec = { mode: "manual" };
  return [ok, replicas, mode];
}

export function enumInItemsAndMapValues(): FirewallRuleSpec[] {
  const ok: FirewallRuleSpec = { protocols: ["TCP", "SCTP"], actions: { http: "Allow" } };
  // @ts-expect-error ICMP is not a protocol of the enum
  const item: FirewallRuleSpec = { protocols: ["ICMP"] };
  // @ts-expect-error map values are the enum too
  const value: FirewallRuleSpec = { actions: { http: "Maybe" } };
  return [ok, item, value];
}

export function intOrStringTakesNumbersAndStringsEverywhere(): PortMapSpec[] {
  const ok: PortMapSpec = {
    targetPort: 8080,
    maxUnavailable: "25%",
    ports: [80, "http"],
    limits: { cpu: "500m", pods: 10 },
  };
  const named: PortMapSpec = { targetPort: "http" };
  // @ts-expect-error an int-or-string is never a boolean
  const wrong: PortMapSpec = { targetPort: true };
  return [ok, named, wrong];
}

export function preserveUnknownFieldsKeepsDeclaredTypesAndAcceptsOtherKeys(): Array<PipelineSpecConfig | PipelineSpec> {
  const config: PipelineSpecConfig = { name: "build", retries: 2, image: "node:20", extra: { nested: [1, 2] } };
  // @ts-expect-error a declared key keeps its type
  const badName: PipelineSpecConfig = { name: 7 };
  const spec: PipelineSpec = {
    values: { any: "thing" },
    payload: 42,
    steps: [{ run: "make" }],
    args: [1, "two", null],
    parameters: { p: { q: 1 } },
    extras: { e: [] },
  };
  // @ts-expect-error values is an object of any keys, not a string
  const badValues: PipelineSpec = { values: "text" };
  return [config, badName, spec, badValues];
}

export function preserveUnknownFieldsAtTheRootKeepsTheEnvelopeTyped(): Blob[] {
  const ok: Blob = {
    apiVersion: "preserve-unknown-root.fixtures.crdgen.dev/v1",
    kind: "Blob",
    metadata: { name: "b" },
    data: { anything: true },
  };
  // @ts-expect-error the kind is still the literal "Blob"
  const wrongKind: Blob = { apiVersion: "preserve-unknown-root.fixtures.crdgen.dev/v1", kind: "Other", metadata: {} };
  return [ok, wrongKind];
}

export function embeddedResourceNeedsApiVersionAndKind(): Array<
  TemplateSpecResource | TemplateSpecConfigMap | TemplateSpec
> {
  const any: TemplateSpecResource = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "s", labels: { a: "b" } },
    data: {},
  };
  const declared: TemplateSpecConfigMap = { apiVersion: "v1", kind: "ConfigMap", data: { key: "value" } };
  // @ts-expect-error the API server rejects an embedded resource without apiVersion and kind
  const bare: TemplateSpecResource = { metadata: { name: "s" } };
  // @ts-expect-error a declared embedded resource stays closed
  const extra: TemplateSpecConfigMap = { apiVersion: "v1", kind: "ConfigMap", data: {}, binaryData: {} };
  const list: TemplateSpec = { resources: [any, { apiVersion: "apps/v1", kind: "Deployment", spec: { replicas: 1 } }] };
  return [any, declared, bare, extra, list];
}

export function additionalPropertiesIsARecordOfItsValueType(): SettingsSpec[] {
  const ok: SettingsSpec = {
    labels: { app: "web" },
    weights: { a: 1 },
    backends: { main: { host: "db" } },
    lists: { l: ["x"] },
    anything: { x: [1] },
  };
  // @ts-expect-error label values are strings
  const labels: SettingsSpec = { labels: { replicas: 3 } };
  // @ts-expect-error a backend needs its required host
  const backend: SettingsSpec = { backends: { main: { port: 5432 } } };
  return [ok, labels, backend];
}

export function typedUnionTakesEachMember(): SelectorSpec[] {
  const byName: SelectorSpec = { target: "web", limit: 3 };
  const byRef: SelectorSpec = { target: { name: "web", namespace: "prod" }, limit: false };
  // @ts-expect-error a number is neither member of the union
  const wrong: SelectorSpec = { target: 7 };
  return [byName, byRef, wrong];
}

export function requiredOnlyOneOfKeepsEveryPropertyOptional(): PostgresqlSpecStandby[] {
  // The oneOf is documented, not enforced by the type: each alternative is a valid object on its own.
  return [{ s3_wal_path: "s3://wal" }, { standby_host: "primary", standby_port: "5432" }];
}

export function collidingKeysHaveDistinctTypes(): Array<MirrorSpecFooBar | MirrorSpecFoo_Bar> {
  const camel: MirrorSpecFooBar = { camel: "c" };
  const dashed: MirrorSpecFoo_Bar = { dashed: "d" };
  // @ts-expect-error the type of "foo-bar" is not the type of "fooBar"
  const mixed: MirrorSpecFooBar = { dashed: "d" };
  return [camel, dashed, mixed];
}

export function wireKeysStayExact(): KeySetSpec[] {
  const ok: KeySetSpec = {
    class: "gold",
    "x-y": "z",
    default: { value: "v" },
    constructor: "c",
    "a.b": { "c/d": "e" },
    "with space": 1,
    "-XX:MaxRAMPercentage": "75",
  };
  // @ts-expect-error the wire key is "x-y", never a renamed xY
  const renamed: KeySetSpec = { class: "gold", xY: "z" };
  return [ok, renamed];
}

// eslint-disable-next-line @typescript-eslint/no-deprecated -- the deprecated v1alpha1 Backup is the point of this check
export function eachVersionHasItsOwnApiVersion(alpha: BackupV1alpha1, v1: BackupV1): BackupV1[] {
  // @ts-expect-error a v1alpha1 Backup is not a v1 Backup
  const converted: BackupV1 = alpha;
  return [v1, converted];
}
