// Where the benchmarks read and write: they run compiled, from dist/bench/, and work on the repository's folders.
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The folder of the compiled benchmark scripts (dist/bench/): where a benchmark finds the scripts it runs as children. */
export const compiledDir = path.dirname(fileURLToPath(import.meta.url));
/** The repository root. */
export const repoRoot = path.resolve(compiledDir, "..", "..");
/** Where the results are committed: bench/results/. */
export const resultsDir = path.join(repoRoot, "bench", "results");
