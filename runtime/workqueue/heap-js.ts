// heap-js through require, not `import`: an ES module importing a CommonJS package makes Node load its
// cjs-module-lexer and translators, about 0.3 MB of V8 heap held by every process (bench/import-rss.ts).
import { createRequire } from "node:module";
import type * as HeapJs from "heap-js";

export const Heap = (createRequire(import.meta.url)("heap-js") as typeof HeapJs).Heap;
export type Heap<T> = HeapJs.Heap<T>;
