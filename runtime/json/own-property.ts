// Object keys that come from schemas and objects can be any name, __proto__ included: `object[key] = value` would set
// the prototype and the field would silently drop out, and `object[key]` would read Object.prototype's members.

/** Sets `key` as an own, enumerable property, also for the key __proto__. */
export function setOwn(object: object, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The object's own field `key`: a field named __proto__ or toString, never Object.prototype's member. */
export function ownField(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}
