// Placeholder: the client package's public exports.
export {};
