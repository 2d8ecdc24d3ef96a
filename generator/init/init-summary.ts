// What `crdgen init` prints: what it made, where the packages come from, and the commands to run next.
import path from "node:path";
import type { InitResult } from "./scaffold-project.js";

export function initSummary(dir: string, { created, sources }: InitResult): string {
  const lines = [`crdgen init: created ${created.join(", ")} in ${dir}`];
  for (const source of sources.filter((s) => s.packedFrom))
    lines.push(`  ${source.name}: ${source.spec}, packed from ${source.packedFrom} (not installed from a registry)`);
  lines.push(
    `Next: put your CRDs in ${path.join(dir, "crds")}/, then cd ${dir} && npm install && npm run generate && npm test`,
  );
  return `${lines.join("\n")}\n`;
}
