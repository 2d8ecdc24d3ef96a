// Runs controllers until SIGINT or SIGTERM, then shuts them down gracefully (in-flight reconciles finish first).

export interface Runnable {
  readonly name: string;
  run(signal: AbortSignal): Promise<void>;
}

export async function runControllers(controllers: Runnable[], options: { signal?: AbortSignal } = {}): Promise<void> {
  const stop = new AbortController();
  const onSignal = (name: string) => {
    process.stderr.write(`received ${name}: stopping ${controllers.length} controller(s)\n`);
    stop.abort();
  };
  const onInt = () => onSignal("SIGINT");
  const onTerm = () => onSignal("SIGTERM");
  process.once("SIGINT", onInt);
  process.once("SIGTERM", onTerm);
  options.signal?.addEventListener("abort", () => stop.abort(), { once: true });
  try {
    // One failing controller stops the others: an operator that half-runs is worse than one that restarts.
    await Promise.all(controllers.map((c) => c.run(stop.signal).catch((error: unknown) => {
      stop.abort();
      throw error;
    })));
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  }
}
