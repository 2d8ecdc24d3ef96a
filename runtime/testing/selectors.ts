// Label and field selector matching for the fake client (the subset of the API server's selector grammar tests use).
import type { KubernetesObject } from "../client/types.js";

type Requirement = (labels: Record<string, string>) => boolean;

/** Parses `a=b,c!=d,e in (x,y),f notin (z),g,!h` into a predicate over labels; throws on what it cannot read. */
export function parseLabelSelector(selector: string | undefined): (obj: KubernetesObject) => boolean {
  if (!selector || !selector.trim()) return () => true;
  const requirements: Requirement[] = splitTopLevel(selector).map(parseRequirement);
  return (obj) => {
    const labels = obj.metadata?.labels ?? {};
    return requirements.every((r) => r(labels));
  };
}

function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of s) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      parts.push(current);
      current = "";
    } else current += ch;
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter((p) => p !== "");
}

function parseRequirement(r: string): Requirement {
  let m = /^([^\s!=(),]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(r);
  if (m) {
    const [, key, op, values] = m as unknown as [string, string, string, string];
    const set = new Set(values.split(",").map((v) => v.trim()).filter((v) => v !== ""));
    return op === "in" ? (l) => key in l && set.has(l[key]!) : (l) => !(key in l) || !set.has(l[key]!);
  }
  m = /^([^\s!=(),]+)\s*(==|=|!=)\s*([^\s!=(),]*)$/.exec(r);
  if (m) {
    const [, key, op, value] = m as unknown as [string, string, string, string];
    return op === "!=" ? (l) => l[key] !== value : (l) => l[key] === value;
  }
  m = /^(!?)\s*([^\s!=(),]+)$/.exec(r);
  if (m) {
    const [, not, key] = m as unknown as [string, string, string];
    return not ? (l) => !(key in l) : (l) => key in l;
  }
  throw new Error(`unable to parse requirement: ${JSON.stringify(r)}`);
}

/** Field selectors on metadata.name and metadata.namespace (`=`, `==`, `!=`), the fields every resource supports. */
export function parseFieldSelector(selector: string | undefined): (obj: KubernetesObject) => boolean {
  if (!selector || !selector.trim()) return () => true;
  const checks = selector.split(",").map((term) => {
    const m = /^\s*([^\s!=]+)\s*(==|=|!=)\s*(\S*)\s*$/.exec(term);
    if (!m) throw new Error(`invalid field selector: ${JSON.stringify(term)}`);
    const [, field, op, value] = m as unknown as [string, string, string, string];
    const get = fieldGetter(field);
    return (obj: KubernetesObject) => (op === "!=" ? get(obj) !== value : get(obj) === value);
  });
  return (obj) => checks.every((c) => c(obj));
}

function fieldGetter(field: string): (obj: KubernetesObject) => string {
  switch (field) {
    case "metadata.name":
      return (o) => o.metadata?.name ?? "";
    case "metadata.namespace":
      return (o) => o.metadata?.namespace ?? "";
    default:
      throw new Error(`field label not supported by the fake client: ${field}`);
  }
}
