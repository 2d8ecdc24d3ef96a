// Objects (their spec) that validation.test.ts sends to the real API server (dry run) and to the generated
// apply<Kind>Defaults / validate<Kind>. Valid ones show defaulting; invalid ones each break one kind of rule.
// `old` makes the case an update of that stored object (for transition rules reading oldSelf).

export interface ValidationCase {
  what: string;
  /** metadata.name (default: a short generated one). */
  name?: string;
  spec: Record<string, unknown>;
  old?: Record<string, unknown>;
  /** Compare the messages too: each of validate()'s must end one of the server's causes for the same field. */
  messages?: boolean;
}

export interface CrdCases {
  /** The CRD file, relative to the repo root (the fixture and the sample) or to ../shared/crds (corpus). */
  file: string;
  corpus: boolean;
  /** The version to create; its generated module is compared. */
  version: string;
  cases: ValidationCase[];
}

const letters = (n: number) => Array<string>(n).fill("a");

export const validationCases: CrdCases[] = [
  {
    file: "test/fixtures/validation/bounds.yaml",
    corpus: false,
    version: "v1",
    cases: [
      { what: "matches() with RE2's (?i): upper case accepted", spec: { name: "AbC" }, messages: true },
      { what: "matches() with RE2's (?i): a digit rejected", spec: { name: "ab1" }, messages: true },
      { what: "pairs of 300 strings: under the per-call cost limit", spec: { grid: letters(300) } },
      { what: "pairs of 700 strings: over the per-call cost limit", spec: { grid: letters(700) }, messages: true },
      { what: "maxItems rejects 701 strings before any rule runs", spec: { grid: letters(701) } },
      {
        what: "twelve rules looping 300 times: within the per-object budget",
        spec: { budget: { a: "a".repeat(20_000), b: "a".repeat(19_999), list: Array<number>(300).fill(0) } },
      },
      {
        what: "twelve rules looping 440 times: the per-object budget runs out at the twelfth",
        spec: { budget: { a: "a".repeat(20_000), b: "a".repeat(19_999), list: Array<number>(440).fill(0) } },
        messages: true,
      },
    ],
  },
  {
    file: "test/fixtures/validation/crd.yaml",
    corpus: false,
    version: "v1",
    cases: [
      { what: "minimal: defaults at every level", spec: { name: "a" } },
      {
        what: "every field set, defaults inside items and additionalProperties",
        spec: {
          name: "web",
          replicas: 3,
          size: "10Gi",
          ratio: 0.5,
          ports: [{ name: "http" }, { name: "ssh", port: 22 }],
          labels: { team: "x" },
          limits: { small: {}, big: { cpu: "2" } },
          extra: { other: { x: 1, y: [true] } },
          tags: ["a", "b"],
          startTime: "2024-01-01T00:00:00Z",
          address: "10.0.0.0/16",
          dns: "abc",
        },
      },
      {
        what: "unknown fields pruned, nulls dropped or defaulted",
        spec: {
          name: "b",
          bogus: 1,
          note: null,
          level: null,
          ratio: null,
          nested: { enabled: null, junk: true },
          limits: { x: null },
        },
      },
      { what: "int-or-string as an integer", spec: { name: "c", size: 5 } },
      { what: "maximum and enum (blocking: CEL not run)", spec: { name: "d", replicas: 11, mode: "Medium" } },
      { what: "CEL rule with message", spec: { name: "e", replicas: 7 } },
      { what: "CEL rule with messageExpression", spec: { name: "admin" } },
      { what: "CEL rule with fieldPath and reason", spec: { name: "f", ports: [{ name: "telnet", port: 23 }] } },
      { what: "CEL rule on list items", spec: { name: "g", ports: [{ name: "ssh", port: 22, protocol: "UDP" }] } },
      {
        what: "list-type set and map duplicates",
        spec: { name: "h", tags: ["a", "a"], ports: [{ name: "x" }, { name: "x", port: 81 }] },
      },
      { what: "pattern and maxLength", spec: { name: "Bad_Name_Too_Long" } },
      { what: "int-or-string of the wrong type", spec: { name: "i", size: true } },
      { what: "int-or-string string failing the pattern", spec: { name: "j", size: "12Xi" } },
      { what: "exclusiveMinimum", spec: { name: "k", ratio: 0 } },
      { what: "date-time and cidr formats", spec: { name: "l", startTime: "yesterday", address: "10.0.0.1" } },
      { what: "CEL cidr() library", spec: { name: "m", address: "10.0.0.0/4" } },
      { what: "CEL rule on additionalProperties values", spec: { name: "n", labels: { a: "" } } },
      { what: "maxProperties", spec: { name: "o", labels: { a: "1", b: "2", c: "3", d: "4" } } },
      { what: "maxItems", spec: { name: "p", tags: ["a", "b", "c", "d"] } },
      { what: "required property missing", spec: { replicas: 2 } },
      { what: "wrong type", spec: { name: "q", replicas: "three" } },
      {
        what: "embedded resource",
        spec: {
          name: "r",
          template: {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "cm", labels: { a: "b" } },
            data: { k: "v" },
          },
        },
      },
      {
        what: "embedded resource without kind",
        spec: { name: "s", template: { apiVersion: "v1", metadata: { name: "cm" } } },
      },
      {
        what: "embedded resource with a bad apiVersion and kind",
        spec: { name: "t", template: { apiVersion: "a/b/c", kind: "Config_Map" } },
      },
      {
        what: "embedded resource with a name containing /",
        spec: { name: "u", template: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a/b" } } },
      },
      {
        what: "valid values of every validated format",
        spec: {
          name: "fa",
          formats: {
            uuid: "123e4567-e89b-12d3-a456-426614174000",
            hostname: "db-0.example.com",
            email: "a@example.com",
            duration: "1h30m",
            byte: "aGVsbG8=",
            ipv4: "10.1.2.3",
            ipv6: "fd00::1",
            uri: "https://example.com/x?y=1",
            date: "2024-02-29",
            mac: "00:1a:2b:3c:4d:5e",
            shortName: "web-1",
            longName: "a.b-c.d",
            int32: 2147483647,
            unknown: "anything",
          },
        },
      },
      {
        what: "invalid values of every validated format",
        spec: {
          name: "fb",
          formats: {
            uuid: "not-a-uuid",
            hostname: "-bad-.com",
            email: "nobody",
            duration: "1 fortnight",
            byte: "not base64!",
            ipv4: "10.1.2",
            ipv6: "fd00:::1",
            uri: "not a uri",
            date: "2023-02-29",
            mac: "00:1a:2b",
            shortName: "Web_1",
            longName: "a..b",
            int32: 2147483648,
          },
        },
      },
      { what: "CEL format library: not a DNS label", spec: { name: "dn", dns: "Not_A_Label" } },
      { what: "metadata.name not a DNS subdomain", name: "Bad_Name", spec: { name: "v" } },
      { what: "transition rule: immutable name changed", old: { name: "one" }, spec: { name: "two" } },
      { what: "transition rule: name kept", old: { name: "three", replicas: 1 }, spec: { name: "three", replicas: 2 } },
    ],
  },
  {
    file: "samples/mysql/crd.yaml",
    corpus: false,
    version: "v1",
    cases: [
      { what: "minimal: replicas defaulted", spec: { version: "8.0.36" } },
      { what: "unknown field pruned", spec: { version: "8.0.36", replicas: 3, storage: "1Gi" } },
      { what: "version pattern", spec: { version: "latest" } },
      { what: "replicas maximum", spec: { version: "8.0.36", replicas: 10 } },
      { what: "required version", spec: { replicas: 1 } },
      {
        what: "quantities as int-or-string map values",
        spec: { version: "8.0.36", resources: { requests: { cpu: "500m", memory: 1073741824 } } },
      },
      { what: "quantity pattern", spec: { version: "8.0.36", resources: { limits: { cpu: "lots" } } } },
      { what: "defaults inside backup", spec: { version: "8.0.36", backup: { schedule: "0 3 * * *" } } },
      { what: "backup schedule required", spec: { version: "8.0.36", backup: {} } },
      {
        what: "metadata.name over 45 characters (rule on the root)",
        name: `long-${"x".repeat(41)}`,
        spec: { version: "8.0.36" },
      },
      { what: "version downgrade (transition rule)", old: { version: "8.4.0" }, spec: { version: "8.0.36" } },
      { what: "version upgrade", old: { version: "8.0.36" }, spec: { version: "8.4.0" } },
      {
        what: "storage size changed (transition rule on a defaulted object)",
        old: { version: "8.0.36" },
        spec: { version: "8.0.36", storage: { size: "2Gi" } },
      },
      {
        what: "rootPasswordSecretRef changed",
        old: { version: "8.0.36", rootPasswordSecretRef: { name: "a" } },
        spec: { version: "8.0.36", rootPasswordSecretRef: { name: "b" } },
      },
      {
        what: "restoreFrom with the newest dump",
        spec: { version: "8.0.36", restoreFrom: { claimName: "db-backup" } },
      },
      {
        what: "restoreFrom file outside the claim's top level",
        spec: { version: "8.0.36", restoreFrom: { claimName: "db-backup", file: "../db.sql.gz" } },
      },
      {
        what: "restoreFrom added (transition rule)",
        old: { version: "8.0.36" },
        spec: { version: "8.0.36", restoreFrom: { claimName: "db-backup" } },
      },
    ],
  },
  {
    file: "cloudnative-pg/databases.postgresql.cnpg.io.yaml",
    corpus: true,
    version: "v1",
    cases: [
      { what: "minimal: policy and ensure defaulted", spec: { cluster: { name: "pg" }, name: "app", owner: "app" } },
      {
        what: "defaults in an empty object and in items",
        spec: {
          cluster: {},
          name: "app",
          owner: "app",
          extensions: [{ name: "postgis" }],
          schemas: [{ name: "s", ensure: "absent" }],
        },
      },
      { what: "reserved name (CEL)", spec: { cluster: { name: "pg" }, name: "postgres", owner: "app" } },
      {
        what: "builtinLocale without the builtin provider (CEL)",
        spec: { cluster: { name: "pg" }, name: "app", owner: "app", builtinLocale: "C" },
      },
      {
        what: "builtinLocale with the builtin provider",
        spec: { cluster: { name: "pg" }, name: "app", owner: "app", builtinLocale: "C", localeProvider: "builtin" },
      },
      { what: "owner missing", spec: { cluster: { name: "pg" }, name: "app" } },
      { what: "enum", spec: { cluster: { name: "pg" }, name: "app", owner: "app", ensure: "maybe" } },
      {
        what: "CEL rule in list items",
        spec: { cluster: { name: "pg" }, name: "app", owner: "app", servers: [{ name: "s", fdw: "" }] },
      },
      {
        what: "immutable name (transition rule)",
        old: { cluster: { name: "pg" }, name: "one", owner: "app" },
        spec: { cluster: { name: "pg" }, name: "two", owner: "app" },
      },
    ],
  },
  {
    file: "gateway-api/gatewayclasses.gateway.networking.k8s.io.yaml",
    corpus: true,
    version: "v1",
    cases: [
      { what: "valid", spec: { controllerName: "example.com/gateway-controller" } },
      { what: "controllerName pattern", spec: { controllerName: "not a domain" } },
      { what: "description maxLength", spec: { controllerName: "example.com/gw", description: "x".repeat(65) } },
      {
        what: "parametersRef with an empty group",
        spec: { controllerName: "example.com/gw", parametersRef: { group: "", kind: "ConfigMap", name: "cfg" } },
      },
      {
        what: "parametersRef without name",
        spec: { controllerName: "example.com/gw", parametersRef: { group: "", kind: "ConfigMap" } },
      },
      {
        what: "immutable controllerName",
        old: { controllerName: "example.com/a" },
        spec: { controllerName: "example.com/b" },
      },
    ],
  },
  {
    file: "flux-source-controller/gitrepositories.source.toolkit.fluxcd.io.yaml",
    corpus: true,
    version: "v1",
    cases: [
      { what: "minimal: timeout defaulted", spec: { interval: "1m", url: "https://example.com/repo.git" } },
      {
        what: "default inside verify",
        spec: { interval: "1m", url: "https://example.com/repo.git", verify: { secretRef: { name: "keys" } } },
      },
      {
        what: "serviceAccountName without provider (CEL)",
        spec: { interval: "1m", url: "https://example.com/repo.git", serviceAccountName: "sa" },
      },
      {
        what: "serviceAccountName with provider aws",
        spec: { interval: "1m", url: "https://example.com/repo.git", serviceAccountName: "sa", provider: "aws" },
      },
      { what: "url pattern", spec: { interval: "1m", url: "ftp://example.com/repo" } },
      { what: "interval missing", spec: { url: "https://example.com/repo.git" } },
    ],
  },
  {
    file: "calico/ippools.projectcalico.org.yaml",
    corpus: true,
    version: "v3",
    cases: [
      { what: "minimal: assignmentMode and nodeSelector defaulted", spec: { cidr: "10.0.0.0/16" } },
      { what: "host bits set (cidr().masked())", spec: { cidr: "10.0.0.1/16" } },
      { what: "IPIP with IPv6", spec: { cidr: "fd00::/64", ipipMode: "Always" } },
      { what: "IPIP and VXLAN both on", spec: { cidr: "10.1.0.0/16", ipipMode: "Always", vxlanMode: "Always" } },
      { what: "link-local range", spec: { cidr: "169.254.0.0/16" } },
      { what: "blockSize too small for IPv4", spec: { cidr: "10.2.0.0/16", blockSize: 8 } },
      { what: "allowedUses duplicates", spec: { cidr: "10.3.0.0/16", allowedUses: ["Workload", "Workload"] } },
      { what: "cidr format", spec: { cidr: "10.0.0.0" } },
    ],
  },
  {
    file: "flux-notification-controller/receivers.notification.toolkit.fluxcd.io.yaml",
    corpus: true,
    version: "v1",
    cases: [
      {
        what: "minimal: interval defaulted",
        spec: { type: "github", secretRef: { name: "token" }, resources: [{ kind: "GitRepository", name: "app" }] },
      },
      {
        what: "secretRef missing for github (CEL)",
        spec: { type: "github", resources: [{ kind: "GitRepository", name: "app" }] },
      },
      {
        what: "generic-oidc without providers (CEL)",
        spec: { type: "generic-oidc", resources: [{ kind: "GitRepository", name: "app" }] },
      },
      { what: "type enum", spec: { type: "nope", resources: [{ kind: "GitRepository", name: "app" }] } },
      { what: "resources missing", spec: { type: "github" } },
    ],
  },
  {
    file: "metallb/bgpadvertisements.metallb.io.yaml",
    corpus: true,
    version: "v1beta1",
    cases: [
      { what: "empty: aggregation lengths defaulted", spec: {} },
      {
        what: "serviceSelectors with a non-default aggregationLength (CEL after defaulting)",
        spec: { serviceSelectors: [{ matchLabels: { app: "x" } }], aggregationLength: 24 },
      },
      { what: "serviceSelectors with the defaults", spec: { serviceSelectors: [{ matchLabels: { app: "x" } }] } },
      { what: "aggregationLength minimum", spec: { aggregationLength: 0 } },
    ],
  },
];
