// A child AbortSignal meant to be shared by many listeners. Node warns ("possible EventTarget memory leak") once an
// AbortSignal has more than 10 abort listeners, and an informer factory, a controller and its reconciles
// legitimately add one per informer, worker or request: those share this signal, which takes one listener on the
// parent.
import { setMaxListeners } from "node:events";

export interface FanOutSignal {
  signal: AbortSignal;
  /** Aborts the child (not the parent). */
  abort(reason?: unknown): void;
  /** Detaches from the parent (the child stays as it is). */
  dispose(): void;
}

/** An AbortSignal without a listener limit that aborts, with the parent's reason, when parent does. */
export function fanOutSignal(parent?: AbortSignal): FanOutSignal {
  const ctrl = new AbortController();
  setMaxListeners(0, ctrl.signal);
  const abort = (reason?: unknown): void => ctrl.abort(reason);
  if (!parent) return { signal: ctrl.signal, abort, dispose: () => undefined };
  const onAbort = (): void => ctrl.abort(parent.reason);
  if (parent.aborted) onAbort();
  else parent.addEventListener("abort", onAbort, { once: true });
  return { signal: ctrl.signal, abort, dispose: () => parent.removeEventListener("abort", onAbort) };
}
