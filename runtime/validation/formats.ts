// The string formats the API server validates in CRD schemas (k8s.io/apiextensions-apiserver's supported set,
// checked as kube-openapi's strfmt registry does). Any other format is not validated by the server, so crdgen
// drops it from the compiled schema. Keys are the names with "-" removed, as go-openapi normalises them.
import { isIP, isIPv4, isIPv6 } from "node:net";
import { RE2JS } from "re2js";

const re = (pattern: string) => {
  const compiled = RE2JS.compile(pattern);
  return (s: string) => compiled.matcher(s).find();
};

const hostnamePattern = re(
  String.raw`^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$`,
);
const utf8Length = (s: string) => Buffer.byteLength(s, "utf8");
const uuid = re(String.raw`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$`);
const uuid3 = re(String.raw`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$`);
const uuid4 = re(String.raw`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`);
const uuid5 = re(String.raw`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`);
const shortName = re("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");
const longName = re(String.raw`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`);
// RFC 3339 full-date / date-time, as strfmt parses them (time.Parse accepts a "T" or "t" and "Z"/offsets).
const date = /^(\d{4})-(\d{2})-(\d{2})$/;
const dateTime = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
// Go's time.ParseDuration units, plus the Scala-style spelled units strfmt also accepts ("3 days").
const goDuration = /^[-+]?(\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))*$/;
const spelledDuration =
  /^[-+]?\d+\s*(ns|us|µs|μs|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?)$/i;

function validDate(y: string, m: string, d: string): boolean {
  const month = Number(m);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1) return false;
  const days = new Date(Date.UTC(Number(y), month, 0)).getUTCDate();
  return day <= days;
}

function isCidr(s: string): boolean {
  const slash = s.indexOf("/");
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits)) return false;
  const kind = isIP(ip);
  // ParseCIDRSloppy also takes IPv4 octets with leading zeros.
  const v4 = kind === 4 || (/^\d{1,3}(\.\d{1,3}){3}$/.test(ip) && ip.split(".").every((o) => Number(o) <= 255));
  if (v4) return Number(bits) <= 32;
  return kind === 6 && Number(bits) <= 128;
}

function isBase64(s: string): boolean {
  return /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s);
}

function isLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

function isIsbn10(s: string): boolean {
  const v = s.replace(/[\s-]/g, "");
  if (!/^\d{9}[\dX]$/.test(v)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(v[i]);
  sum += v[9] === "X" ? 100 : 10 * Number(v[9]);
  return sum % 11 === 0;
}

function isIsbn13(s: string): boolean {
  const v = s.replace(/[\s-]/g, "");
  if (!/^\d{13}$/.test(v)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(v[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === Number(v[12]);
}

/** Format name (without "-") -> check, for the formats the API server validates. */
export const kubernetesFormats: Readonly<Record<string, (s: string) => boolean>> = {
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  uri: (s) => {
    // net/url.ParseRequestURI: an absolute URI or an absolute path.
    if (s.startsWith("/")) return !/\s/.test(s);
    try {
      const u = new URL(s);
      return u.protocol.length > 1;
    } catch {
      return false;
    }
  },
  email: (s) => /^[^\s@<>()",;:]+@[^\s@<>()",;:]+$/.test(s) || /^[^<>]*<[^\s@<>]+@[^\s@<>]+>$/.test(s),
  hostname: (s) => hostnamePattern(s) && utf8Length(s) <= 255 && s.split(".").every((p) => utf8Length(p) <= 63),
  ipv4: (s) =>
    s.includes(".") &&
    (isIPv4(s) || (/^\d{1,3}(\.\d{1,3}){3}$/.test(s) && s.split(".").every((o) => Number(o) <= 255)) || isIPv6(s)),
  ipv6: (s) => isIPv6(s),
  cidr: isCidr,
  mac: (s) =>
    /^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{2}[:-]){7}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{2}[:-]){19}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{4}\.){2}[0-9a-fA-F]{4}$|^([0-9a-fA-F]{4}\.){3}[0-9a-fA-F]{4}$|^([0-9a-fA-F]{4}\.){9}[0-9a-fA-F]{4}$/.test(
      s,
    ),
  uuid,
  uuid3,
  uuid4,
  uuid5,
  isbn: (s) => isIsbn10(s) || isIsbn13(s),
  isbn10: isIsbn10,
  isbn13: isIsbn13,
  creditcard: (s) => {
    const digits = s.replace(/[^0-9]/g, "");
    return (
      /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$/.test(
        digits,
      ) && isLuhn(digits)
    );
  },
  ssn: (s) => /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(s),
  hexcolor: (s) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(s),
  rgbcolor: (s) =>
    /^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/.test(
      s,
    ),
  byte: isBase64,
  password: () => true,
  date: (s) => {
    const m = date.exec(s);
    return m !== null && validDate(m[1]!, m[2]!, m[3]!);
  },
  duration: (s) => goDuration.test(s) || spelledDuration.test(s),
  datetime: (s) => {
    const m = dateTime.exec(s);
    return m !== null && validDate(m[1]!, m[2]!, m[3]!) && Number(m[4]) < 24 && Number(m[5]) < 60 && Number(m[6]) < 60;
  },
  k8sshortname: (s) => s.length <= 63 && shortName(s),
  k8slongname: (s) => s.length <= 253 && longName(s),
};

/** The validated format for a schema `format` (with or without dashes), or undefined when the server ignores it. */
export function kubernetesFormatName(format: string): string | undefined {
  const normalized = format.replace(/-/g, "");
  return Object.prototype.hasOwnProperty.call(kubernetesFormats, normalized) ? normalized : undefined;
}

/**
 * Range checks the API server makes for single-typed numbers (kube-openapi's IsValueValidAgainstRange): integer
 * int32 / int64, number float (float32). They are ajv number formats; "double" needs no check.
 */
export const kubernetesNumberFormats: Readonly<Record<string, { type: "number"; validate: (n: number) => boolean }>> = {
  int32: { type: "number", validate: (n) => n >= -2147483648 && n <= 2147483647 },
  int64: { type: "number", validate: (n) => !Number.isInteger(n) || Math.abs(n) < 9223372036854775808 },
  float: { type: "number", validate: (n) => Math.abs(n) <= 3.4028234663852886e38 },
};

/** Every format ajv knows in crdgen's compiled validators: the string formats and the number ranges. */
export const validatorFormats: Readonly<
  Record<string, ((s: string) => boolean) | { type: "number"; validate: (n: number) => boolean }>
> = {
  ...kubernetesFormats,
  ...kubernetesNumberFormats,
};
