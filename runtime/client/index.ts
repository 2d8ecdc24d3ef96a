// The client package's public exports.
export * from "./types.js";
export * from "./api-error.js";
export * from "./kube-client.js";
export * from "./patch.js";
export * from "./retry.js";
export * from "./resource-client.js";
export { LineSplitter } from "./ndjson.js";
export { ListDecoder } from "./list-decoder.js";
export * from "./bound-verbs.js";
export * from "./builtin-resources.js";
export * from "./object-meta-dates.js";
export * from "./string-pool.js";
