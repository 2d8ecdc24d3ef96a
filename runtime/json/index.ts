// @crdgen/runtime/json: small rules about JSON values that the runtime and the generator share (RFC 6901 pointers).
export { escapePointerSegment, jsonPointer, pointerSegments, unescapePointerSegment } from "./pointer.js";
