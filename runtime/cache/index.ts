// Placeholder: the cache package's public exports.
export {};
