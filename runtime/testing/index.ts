// @crdgen/runtime/testing: fakes for unit tests of reconcile hooks (no API server needed).
export * from "./fake-cluster.js";
export { applyJsonPatch, applyMergePatch } from "./json-patch.js";
export { parseFieldSelector, parseLabelSelector } from "./selectors.js";
export * from "./fake-children.js";
