// controller-runtime's ReconciliationTimeout: each reconcile gets a signal that aborts when the controller stops or
// when its own deadline passes, whichever comes first. Cooperative, as a Go context: the hook must pass the signal on.
import { fanOutSignal } from "../cache/fan-out-signal.js";

export interface ReconcileDeadline {
  /** What the hooks get as ctx.signal. */
  readonly signal: AbortSignal;
  /** True when the deadline aborted the signal (not the controller's own stop): controller-runtime counts a timeout. */
  timedOut(): boolean;
  /** Clears the timer and detaches from the controller's signal; call once the reconcile is over. */
  dispose(): void;
}

/** A signal that aborts with parent, or after timeoutMs with a TimeoutError "reconciliation timeout". */
export function reconcileDeadline(parent: AbortSignal, timeoutMs: number): ReconcileDeadline {
  const child = fanOutSignal(parent);
  // controller-runtime's errReconciliationTimeout, as the platform names a timeout (AbortSignal.timeout's reason).
  const reason = new DOMException("reconciliation timeout", "TimeoutError");
  const timer = setTimeout(() => child.abort(reason), timeoutMs);
  return {
    signal: child.signal,
    timedOut: () => child.signal.aborted && child.signal.reason === reason,
    dispose: () => {
      clearTimeout(timer);
      child.dispose();
    },
  };
}
