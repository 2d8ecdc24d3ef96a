// Placeholder: the controller package's public exports.
export {};
