// prom-client through require, not `import`: an ES module importing a CommonJS package makes Node load its
// cjs-module-lexer and ESM-to-CommonJS translators, about 0.3 MB of V8 heap that every replica holds for its whole
// life (bench/import-rss.ts). require shares the one module instance (and the global `register`) with an operator's
// own `import ... from "prom-client"`.
import { createRequire } from "node:module";
import type * as PromClient from "prom-client";

const promClient = createRequire(import.meta.url)("prom-client") as typeof PromClient;

export const Counter = promClient.Counter;
export type Counter<T extends string = string> = PromClient.Counter<T>;
export const Gauge = promClient.Gauge;
export type Gauge<T extends string = string> = PromClient.Gauge<T>;
export const Histogram = promClient.Histogram;
export type Histogram<T extends string = string> = PromClient.Histogram<T>;
export const Registry = promClient.Registry;
export type Registry = PromClient.Registry;
export const exponentialBuckets = promClient.exponentialBuckets;
export const collectDefaultMetrics = promClient.collectDefaultMetrics;
