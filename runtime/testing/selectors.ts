// Label and field selector matching for the fake client: labels with the cache's parser (the API server's grammar),
// fields on metadata.name and metadata.namespace, the fields every resource supports.
import type { KubernetesObject } from "../client/types.js";
import { parseLabelSelector } from "../cache/labels.js";

/** A predicate over objects for a labelSelector query parameter; throws on what the API server would refuse. */
export function labelSelectorMatcher(selector: string | undefined): (obj: KubernetesObject) => boolean {
  if (!selector || !selector.trim()) return () => true;
  const parsed = parseLabelSelector(selector);
  return (obj) => parsed.matches(obj.metadata?.labels);
}

/** Field selectors on metadata.name and metadata.namespace (`=`, `==`, `!=`), the fields every resource supports. */
export function fieldSelectorMatcher(selector: string | undefined): (obj: KubernetesObject) => boolean {
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
