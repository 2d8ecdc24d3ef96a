// crdgen's version: written into every generated file's header and the lock, and what `crdgen init` depends on.
export const generatorVersion = "0.1.0";
