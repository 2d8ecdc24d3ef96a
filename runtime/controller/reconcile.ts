// The reconcile contract (controller-runtime's Request/Result): what a hook returns and what it receives.
import type { KubeClient } from "../client/kube-client.js";
import type { EventRecorder } from "../events/event-recorder.js";
import type { ChildObjects } from "../children/child-objects.js";
import type { Logger } from "../log/logger.js";

/**
 * What reconcile returns. Nothing (or {}) means done until the next change. As controller-runtime's Result:
 * requeueAfter (ms) runs it again after exactly that long and resets the key's backoff; otherwise requeue: true runs it
 * again after the rate limiter's delay (5 ms doubling per requeue, as after an error, without counting as one).
 */
export interface ReconcileResult {
  requeueAfter?: number;
  requeue?: boolean;
}

/** What every hook receives; the generated per-kind context adds the typed client and lister. */
export interface ReconcileContext {
  /** The workqueue key, `namespace/name` (or `name` for cluster-scoped kinds). */
  key: string;
  namespace: string | undefined;
  name: string;
  log: Logger;
  recorder: EventRecorder;
  kube: KubeClient;
  /** The owned and watched kinds' caches, and apply/delete of children that sends nothing when nothing changed. */
  children: ChildObjects;
  /**
   * Aborted when the controller shuts down, or when reconciliationTimeoutMs passes (reason: a TimeoutError
   * "reconciliation timeout"): pass it to long calls.
   */
  signal: AbortSignal;
}

/**
 * Throw this from a hook for a failure that retrying cannot fix (invalid spec, say): the key is forgotten,
 * not requeued, as controller-runtime does with reconcile.TerminalError.
 */
export class TerminalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "TerminalError";
  }
}
