// Test helper (not a test): starts one real control plane per test file with the sample CRD installed.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startControlPlane, type ControlPlane } from "@crdgen/runtime/envtest";
import { pollUntil } from "@crdgen/runtime/wait";

/** The repository root, from dist/test/e2e/ where this file runs. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

export async function startSampleControlPlane(): Promise<ControlPlane> {
  // A missing binary fails the test with MissingBinaryError, which says what is missing and how to build it.
  return startControlPlane({ crdFiles: [path.join(repoRoot, "samples/mysql/crd.yaml")] });
}

/** Polls `check` (sync or async) every 100 ms until it returns a value, or fails after `timeoutMs` naming what it waited for. */
export function eventually<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  // A check that throws means "not yet", as one that returns undefined.
  const notYet = () => undefined;
  return pollUntil(() => Promise.resolve().then(check).catch(notYet), { intervalMs: 100, timeoutMs, what });
}
