// Status conditions with apimachinery's meta.SetStatusCondition semantics: one entry per type, and
// lastTransitionTime moves only when status flips, so "since when" stays true across reconciles.

/** metav1.Condition. */
export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  observedGeneration?: number;
  /** RFC 3339; set by setStatusCondition. */
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** The condition of `type`, if present. */
export function findStatusCondition<C extends { type: string }>(
  conditions: readonly C[] | undefined,
  type: string,
): C | undefined {
  return conditions?.find((c) => c.type === type);
}

/**
 * What setStatusCondition needs of a condition: metav1.Condition, and the conditions third-party CRDs declare
 * (`status: string`, optional reason and message, extra fields such as lastUpdateTime kept as they are).
 */
export interface StatusConditionLike {
  type: string;
  status: string;
  lastTransitionTime?: string | undefined;
}

/** The fields setStatusCondition replaces even when the new condition leaves them out. */
interface Cleared {
  reason?: string;
  message?: string;
  observedGeneration?: number;
}

/** True when the condition of `type` is present with status "True". */
export function isStatusConditionTrue(
  conditions: readonly { type: string; status: string }[] | undefined,
  type: string,
): boolean {
  return findStatusCondition(conditions, type)?.status === "True";
}

/**
 * A new list with `condition` set, as meta.SetStatusCondition does: added if its type is new; otherwise status,
 * reason, message and observedGeneration take the new values (absent ones are cleared, as Go's zero values are) and
 * lastTransitionTime changes only if status changed (to the one given, else `now`). The input is not modified.
 */
export function setStatusCondition<C extends StatusConditionLike>(
  conditions: readonly C[] | undefined,
  condition: NoInfer<Omit<C, "lastTransitionTime"> & { lastTransitionTime?: string }>,
  now: Date = new Date(),
): C[] {
  const list = [...(conditions ?? [])];
  const at = list.findIndex((c) => c.type === condition.type);
  const stamp = condition.lastTransitionTime || rfc3339Seconds(now);
  if (at < 0) {
    list.push({ ...condition, lastTransitionTime: stamp } as unknown as C);
    return list;
  }
  const existing = list[at]!;
  // Go's SetStatusCondition replaces these whether set or not: an absent one is cleared.
  const { reason: _r, message: _m, observedGeneration: _g, ...kept } = existing as StatusConditionLike & Cleared;
  const next: Record<string, unknown> = { ...kept, ...condition };
  const lastTransitionTime = existing.status === condition.status ? existing.lastTransitionTime : stamp;
  if (lastTransitionTime === undefined) delete next.lastTransitionTime;
  else next.lastTransitionTime = lastTransitionTime;
  list[at] = next as unknown as C;
  return list;
}

/** A new list without the condition of `type`. */
export function removeStatusCondition<C extends { type: string }>(
  conditions: readonly C[] | undefined,
  type: string,
): C[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}

/** metav1.Time's wire form: RFC 3339 with second precision. */
function rfc3339Seconds(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, "Z");
}
