// @crdgen/runtime/json: small rules about JSON values that the runtime and the generator share (RFC 6901 pointers,
// equality as the API server sees it).
export { escapePointerSegment, jsonPointer, pointerSegments, unescapePointerSegment } from "./pointer.js";
export { ownField, setOwn } from "./own-property.js";
export { sameJson } from "./same-json.js";
