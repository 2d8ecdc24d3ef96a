// Full garbage collections for leak tests (WeakRef): node's gc, exposed at run time so that no flag is needed.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** Runs several full collections, letting pending callbacks (and FinalizationRegistry work) run between them. */
export async function collectGarbage(): Promise<void> {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  for (let i = 0; i < 5; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
}
