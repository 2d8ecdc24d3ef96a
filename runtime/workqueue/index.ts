// Placeholder: the workqueue package's public exports.
export {};
