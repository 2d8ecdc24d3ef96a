// The controller package's public exports: the loop, the reconcile contract, logging, events, finalizers.
export * from "./controller.js";
export * from "./reconcile.js";
export * from "./logger.js";
export * from "./event-recorder.js";
export * from "./finalizer.js";
export * from "./run-controllers.js";
export * from "./owner-references.js";
export * from "./watches.js";
export * from "./conditions.js";
export * from "./child-objects.js";
export * from "./managed-fields.js";
export * from "./content-hash.js";
