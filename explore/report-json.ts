// `--json`: the result as it is, with a version so scripts can tell when its shape changes.
import type { ExploreResult } from "./model.js";

export function jsonReport(result: ExploreResult): string {
  return `${JSON.stringify({ version: 1, ...result }, null, 2)}\n`;
}
