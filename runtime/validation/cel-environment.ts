// The CEL environment for x-kubernetes-validations: @marcbachmann/cel-js with `self` and `oldSelf`, plus the
// Kubernetes CEL library functions crdgen implements (lists, strings, regex, URLs, IPs and CIDRs). Expressions
// calling anything else are reported as skipped, never guessed at. Every regular expression is RE2 (re2js), as
// Go's regexp is on the API server: linear in the input, whatever the pattern.
import { isIP as netIsIP } from "node:net";
import { Environment, Optional } from "@marcbachmann/cel-js";
import { RE2JS } from "re2js";
import { kubernetesFormats } from "./formats.js";

class IPValue {
  constructor(
    readonly family: 4 | 6,
    readonly bits: bigint,
    readonly text: string,
  ) {}
}
class CIDRValue {
  constructor(
    readonly ip: IPValue,
    readonly prefix: number,
  ) {}
}

/** The `format` library: named checks whose validate() gives optional.none() when the string is valid. */
// eslint-disable-next-line @typescript-eslint/no-extraneous-class -- the CEL runtime needs a constructor to register `format`'s type; the class carries no state
class FormatLibrary {}
class NamedFormat {
  constructor(
    readonly name: string,
    readonly check: (s: string) => string[],
  ) {}
}

/** The method name `s.matches(re)` is rewritten to: cel-js's own `matches` uses JS RegExp and cannot be replaced. */
export const re2MatchesMethod = "matchesRE2";

// Compiled patterns, kept for the rules' constant patterns; bounded so patterns taken from objects cannot grow it.
const compiledPatterns = new Map<string, RE2JS>();
const maxCompiledPatterns = 256;

/** An RE2 pattern, compiled once; a syntax error is Go's ("error parsing regexp: ..."). */
export function re2(source: string): RE2JS {
  let compiled = compiledPatterns.get(source);
  if (!compiled) {
    compiled = RE2JS.compile(source);
    if (compiledPatterns.size >= maxCompiledPatterns) compiledPatterns.delete(compiledPatterns.keys().next().value!);
    compiledPatterns.set(source, compiled);
  }
  return compiled;
}

const re2Matches = (s: string, re: string): boolean => re2(re).matcher(s).find();

/** Go's strings.Replace: at most n (all when negative) replacements; an empty `old` matches around every rune. */
export function replaceLikeGo(s: string, old: string, replacement: string, n: bigint): string {
  if (n === 0n || old === replacement) return s;
  const limit = n < 0n ? Infinity : Number(n);
  // String concatenation builds ropes in V8: appending is constant time, so the whole is linear.
  let out = "";
  let count = 0;
  if (old === "") {
    for (let i = 0; i < s.length;) {
      const width = s.codePointAt(i)! > 0xffff ? 2 : 1;
      if (count < limit) {
        out += replacement;
        count++;
      } else return out + s.slice(i);
      out += s.slice(i, i + width);
      i += width;
    }
    return count < limit ? out + replacement : out;
  }
  let from = 0;
  while (count < limit) {
    const at = s.indexOf(old, from);
    if (at < 0) break;
    out += s.slice(from, at) + replacement;
    from = at + old.length;
    count++;
  }
  return out + s.slice(from);
}

const pattern =
  (source: string, max: number | undefined, what: string) =>
  (s: string): string[] => {
    const errors: string[] = [];
    if (max !== undefined && s.length > max) errors.push(`must be no more than ${max} characters`);
    if (!re2Matches(s, source)) errors.push(what);
    return errors;
  };
const label = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const dns1123Label = pattern(
  `^${label}$`,
  63,
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
);
const dns1123Subdomain = pattern(
  `^${label}(\\.${label})*$`,
  253,
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
);
const dns1035Label = pattern(
  "^[a-z]([-a-z0-9]*[a-z0-9])?$",
  63,
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
);
const labelValue = (s: string) =>
  s === ""
    ? []
    : pattern(
        "^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$",
        63,
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
      )(s);
const qualifiedName = (s: string): string[] => {
  const parts = s.split("/");
  if (parts.length > 2)
    return [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character with an optional DNS subdomain prefix and '/'",
    ];
  const name = parts.at(-1)!;
  const errors =
    name === ""
      ? ["name part must be non-empty"]
      : pattern(
          "^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$",
          63,
          "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        )(name);
  if (parts.length === 2)
    errors.push(
      ...(parts[0] === ""
        ? ["prefix part must be non-empty"]
        : dns1123Subdomain(parts[0]!).map((e) => `prefix part ${e}`)),
    );
  return errors;
};
// A "prefix" check (for generateName) allows a trailing '-' that the full name could not end with.
const prefix = (check: (s: string) => string[]) => (s: string) => check(s.endsWith("-") ? `${s.slice(0, -1)}a` : s);
const namedFormats: Record<string, (s: string) => string[]> = {
  dns1123Label,
  dns1123Subdomain,
  dns1035Label,
  qualifiedName,
  labelValue,
  dns1123LabelPrefix: prefix(dns1123Label),
  dns1123SubdomainPrefix: prefix(dns1123Subdomain),
  dns1035LabelPrefix: prefix(dns1035Label),
  uri: (s) => (kubernetesFormats["uri"]!(s) ? [] : ["invalid URI"]),
  uuid: (s) => (kubernetesFormats["uuid"]!(s) ? [] : ["does not match the UUID format"]),
  byte: (s) => (kubernetesFormats["byte"]!(s) ? [] : ["invalid base64"]),
  date: (s) => (kubernetesFormats["date"]!(s) ? [] : ["invalid date"]),
  datetime: (s) => (kubernetesFormats["datetime"]!(s) ? [] : ["invalid datetime"]),
};

function parseIPv4(s: string): bigint | undefined {
  const parts = s.split(".");
  if (
    parts.length !== 4 ||
    parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255 || (p.length > 1 && p.startsWith("0")))
  )
    return undefined;
  return parts.reduce((acc, p) => (acc << 8n) | BigInt(p), 0n);
}

function parseIPv6(s: string): bigint | undefined {
  if (netIsIP(s) !== 6 || s.includes("%")) return undefined;
  let text = s;
  const lastColon = text.lastIndexOf(":");
  const tail = text.slice(lastColon + 1);
  if (tail.includes(".")) {
    const v4 = parseIPv4(tail);
    if (v4 === undefined) return undefined;
    text = `${text.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, rest] = text.split("::") as [string, string | undefined];
  const headGroups = head ? head.split(":") : [];
  const restGroups = rest ? rest.split(":") : [];
  const missing = 8 - headGroups.length - restGroups.length;
  const groups = rest === undefined ? headGroups : [...headGroups, ...Array<string>(missing).fill("0"), ...restGroups];
  if (groups.length !== 8) return undefined;
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/** Parses an IP the way the Kubernetes CEL library does: no zone, no IPv4-mapped IPv6, no leading zeros. */
function parseIP(s: string): IPValue | undefined {
  const v4 = parseIPv4(s);
  if (v4 !== undefined) return new IPValue(4, v4, s);
  if (/^::ffff:\d/i.test(s)) return undefined;
  const v6 = parseIPv6(s);
  return v6 === undefined ? undefined : new IPValue(6, v6, s);
}

function parseCIDR(s: string): CIDRValue | undefined {
  const slash = s.indexOf("/");
  if (slash < 0) return undefined;
  const ip = parseIP(s.slice(0, slash));
  const prefixText = s.slice(slash + 1);
  if (!ip || !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  return prefix > (ip.family === 4 ? 32 : 128) ? undefined : new CIDRValue(ip, prefix);
}

const mask = (family: 4 | 6, prefix: number) => {
  const w = family === 4 ? 32n : 128n;
  return ((1n << w) - 1n) ^ ((1n << (w - BigInt(prefix))) - 1n);
};
const formatIP = (family: 4 | 6, bits: bigint): string => {
  if (family === 4) return [24n, 16n, 8n, 0n].map((s) => String((bits >> s) & 255n)).join(".");
  const groups = Array.from({ length: 8 }, (_, i) => ((bits >> BigInt((7 - i) * 16)) & 0xffffn).toString(16));
  return groups.join(":").replace(/(^|:)0(:0)+(:|$)/, "::");
};
const contains = (cidr: CIDRValue, ip: IPValue) =>
  ip.family === cidr.ip.family &&
  (ip.bits & mask(ip.family, cidr.prefix)) === (cidr.ip.bits & mask(ip.family, cidr.prefix));

function must<T>(value: T | undefined, what: string, input: string): T {
  if (value === undefined) throw new Error(`${what} parse error during conversion from string: ${input}`);
  return value;
}

function compareValues(a: unknown, b: unknown): number {
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  const x = typeof a === "bigint" ? Number(a) : (a as number);
  const y = typeof b === "bigint" ? Number(b) : (b as number);
  return x < y ? -1 : x > y ? 1 : 0;
}

function reduceList(list: unknown[], pick: (a: unknown, b: unknown) => unknown): unknown {
  if (list.length === 0) throw new Error("min/max of an empty list");
  return list.reduce((a, b) => pick(a, b));
}

// Objects reach CEL as Maps (cel-rules.ts toCelValue): written out as objects, in their key order.
const bigintAsText = (_k: string, v: unknown): unknown =>
  typeof v === "bigint" ? `${v}n` : v instanceof Map ? Object.fromEntries(v) : v;
const equalJson = (a: unknown, b: unknown): boolean =>
  JSON.stringify(a, bigintAsText) === JSON.stringify(b, bigintAsText);

/** A fresh environment with `self` and `oldSelf` declared as dyn and the Kubernetes library functions registered. */
export function kubernetesCelEnvironment(): Environment {
  const env = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false })
    .registerVariable("self", "dyn")
    .registerVariable("oldSelf", "dyn")
    .registerType("net.IP", IPValue)
    .registerType("net.CIDR", CIDRValue)
    // Kubernetes list library.
    .registerFunction("list<dyn>.isSorted(): bool", (l: unknown[]) =>
      l.every((v, i) => i === 0 || compareValues(l[i - 1], v) <= 0),
    )
    .registerFunction("list<dyn>.sum(): dyn", (l: unknown[]) =>
      l.length === 0 ? 0n : l.reduce((a, b) => (a as number) + (b as number)),
    )
    .registerFunction("list<dyn>.min(): dyn", (l: unknown[]) =>
      reduceList(l, (a, b) => (compareValues(a, b) <= 0 ? a : b)),
    )
    .registerFunction("list<dyn>.max(): dyn", (l: unknown[]) =>
      reduceList(l, (a, b) => (compareValues(a, b) >= 0 ? a : b)),
    )
    // cel-go's lists extension (version 3 on the API server), which has reverse(); its strings extension is at
    // version 2 there, which has no reverse() of a string (the API server rejects such a rule).
    .registerFunction("list<dyn>.reverse(): list<dyn>", (l: unknown[]) => [...l].reverse())
    .registerFunction("list<dyn>.indexOf(dyn): int", (l: unknown[], v: unknown) =>
      BigInt(l.findIndex((x) => equalJson(x, v))),
    )
    .registerFunction("list<dyn>.lastIndexOf(dyn): int", (l: unknown[], v: unknown) => {
      for (let i = l.length - 1; i >= 0; i--) if (equalJson(l[i], v)) return BigInt(i);
      return -1n;
    })
    // Extended strings and regex.
    .registerFunction("string.charAt(int): string", (s: string, i: bigint) => {
      const chars = Array.from(s); // code points, as CEL counts them
      if (i < 0n || i > BigInt(chars.length)) throw new Error(`index out of range: ${i}`);
      return chars[Number(i)] ?? "";
    })
    .registerFunction("string.replace(string, string): string", (s: string, a: string, b: string) =>
      replaceLikeGo(s, a, b, -1n),
    )
    .registerFunction("string.replace(string, string, int): string", replaceLikeGo)
    .registerFunction(`string.${re2MatchesMethod}(string): bool`, re2Matches)
    .registerFunction("matches(string, string): bool", re2Matches)
    .registerFunction("string.find(string): string", (s: string, re: string) => {
      const m = re2(re).matcher(s);
      return m.find() ? (m.group() ?? "") : "";
    })
    .registerFunction("string.findAll(string): list<string>", (s: string, re: string) => {
      const m = re2(re).matcher(s);
      const out: string[] = [];
      while (m.find()) out.push(m.group() ?? "");
      return out;
    })
    // Named formats: format.dns1123Label().validate(s), format.named("...").
    .registerType("k8s.FormatLibrary", FormatLibrary)
    .registerType("k8s.Format", NamedFormat)
    .registerConstant("format", "k8s.FormatLibrary", new FormatLibrary())
    .registerFunction("k8s.FormatLibrary.named(string): optional<k8s.Format>", (_: FormatLibrary, name: string) =>
      Object.prototype.hasOwnProperty.call(namedFormats, name)
        ? Optional.of(new NamedFormat(name, namedFormats[name]!))
        : Optional.none(),
    )
    .registerFunction("k8s.Format.validate(string): optional<list<string>>", (f: NamedFormat, s: string) => {
      const errors = f.check(s);
      return errors.length ? Optional.of(errors) : Optional.none();
    })
    // URLs.
    .registerFunction("isURL(string): bool", (s: string) => {
      if (s.startsWith("/")) return true;
      try {
        return new URL(s).protocol.length > 1;
      } catch {
        return false;
      }
    })
    // IP addresses and CIDRs (the Kubernetes net library).
    .registerFunction("isIP(string): bool", (s: string) => parseIP(s) !== undefined)
    .registerFunction("ip(string): net.IP", (s: string) => must(parseIP(s), "IP Address", s))
    .registerFunction("net.IP.family(): int", (ip: IPValue) => BigInt(ip.family))
    .registerFunction("net.IP.isLoopback(): bool", (ip: IPValue) =>
      ip.family === 4 ? ip.bits >> 24n === 127n : ip.bits === 1n,
    )
    .registerFunction("net.IP.isUnspecified(): bool", (ip: IPValue) => ip.bits === 0n)
    .registerFunction("string(net.IP): string", (ip: IPValue) => formatIP(ip.family, ip.bits))
    .registerOperator("net.IP == net.IP", (a: IPValue, b: IPValue) => a.family === b.family && a.bits === b.bits)
    .registerFunction("isCIDR(string): bool", (s: string) => parseCIDR(s) !== undefined)
    .registerFunction("cidr(string): net.CIDR", (s: string) => must(parseCIDR(s), "network address", s))
    .registerFunction("net.CIDR.ip(): net.IP", (c: CIDRValue) => c.ip)
    .registerFunction("net.CIDR.prefixLength(): int", (c: CIDRValue) => BigInt(c.prefix))
    .registerFunction("net.CIDR.masked(): net.CIDR", (c: CIDRValue) => {
      const bits = c.ip.bits & mask(c.ip.family, c.prefix);
      return new CIDRValue(new IPValue(c.ip.family, bits, formatIP(c.ip.family, bits)), c.prefix);
    })
    .registerFunction("net.CIDR.containsIP(net.IP): bool", (c: CIDRValue, ip: IPValue) => contains(c, ip))
    .registerFunction("net.CIDR.containsIP(string): bool", (c: CIDRValue, s: string) =>
      contains(c, must(parseIP(s), "IP Address", s)),
    )
    .registerFunction(
      "net.CIDR.containsCIDR(net.CIDR): bool",
      (c: CIDRValue, o: CIDRValue) => o.prefix >= c.prefix && contains(c, o.ip),
    )
    .registerFunction("net.CIDR.containsCIDR(string): bool", (c: CIDRValue, s: string) => {
      const o = must(parseCIDR(s), "network address", s);
      return o.prefix >= c.prefix && contains(c, o.ip);
    })
    .registerFunction("string(net.CIDR): string", (c: CIDRValue) => `${formatIP(c.ip.family, c.ip.bits)}/${c.prefix}`)
    .registerOperator(
      "net.CIDR == net.CIDR",
      (a: CIDRValue, b: CIDRValue) => a.prefix === b.prefix && a.ip.family === b.ip.family && a.ip.bits === b.ip.bits,
    );
  for (const name of Object.keys(namedFormats)) {
    env.registerFunction(`k8s.FormatLibrary.${name}(): k8s.Format`, () => new NamedFormat(name, namedFormats[name]!));
  }
  return env;
}
