// The client package's public exports.
export * from "./types.js";
