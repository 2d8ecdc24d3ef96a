// Starts and stops control plane processes so that none outlives the test run: own process group, exit handlers,
// SIGKILL after a grace period.
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream } from "node:fs";

export interface ManagedProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Resolves with the exit code (or signal) when the process ends. */
  readonly exited: Promise<number | string>;
  /** SIGTERM, then SIGKILL after `graceMs` (default 20 s, envtest's stop timeout). */
  stop(graceMs?: number): Promise<void>;
}

/** Runs "$@" and waits; if the parent (argument 1) disappears first, stops it: SIGTERM, then SIGKILL after 5 s. */
const watchdog = [
  'parent="$1"; shift',
  '"$@" & child=$!',
  'trap \'kill -TERM "$child" 2>/dev/null; wait "$child"; exit $?\' TERM INT',
  'while kill -0 "$parent" 2>/dev/null && kill -0 "$child" 2>/dev/null; do sleep 0.5 & wait $!; done',
  'if kill -0 "$child" 2>/dev/null; then kill -TERM "$child"; for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$child" 2>/dev/null || break; sleep 0.5; done; kill -KILL "$child" 2>/dev/null; fi',
  'wait "$child"',
].join("\n");

const live = new Set<ManagedProcess>();
let handlersInstalled = false;

/** Kill every live control plane process group; used on exit, so it must be synchronous. */
function killAll(): void {
  for (const p of live) {
    try {
      if (p.child.pid) process.kill(-p.child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  live.clear();
}

function installExitHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on("exit", killAll);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => {
      killAll();
      // Keep the usual meaning of the signal when nobody else handles it.
      if (process.listenerCount(signal) === 1)
        process.exit(128 + ({ SIGINT: 2, SIGTERM: 15, SIGHUP: 1 } as const)[signal]);
    });
  }
}

/** `env`: extra environment variables for the binary (on top of this process's environment). */
export function startProcess(
  name: string,
  binary: string,
  args: string[],
  logFile: string,
  env?: Record<string, string>,
): ManagedProcess {
  installExitHandlers();
  const log = createWriteStream(logFile, { flags: "a" });
  // detached: the process leads its own group, so one kill(-pid) also ends anything it spawned. The bash watchdog
  // ends the binary when this Node process dies without running exit handlers (SIGKILL, OOM kill).
  const child = spawn("bash", ["-c", watchdog, "crdgen-envtest-watchdog", String(process.pid), binary, ...args], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    ...(env ? { env: { ...process.env, ...env } } : {}),
  });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  const exited = new Promise<number | string>((resolve) => {
    child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown"));
    child.once("error", (error) => resolve(`failed to start: ${error.message}`));
  });
  const managed: ManagedProcess = {
    name,
    child,
    exited,
    async stop(graceMs = 20_000) {
      if (child.exitCode !== null || child.signalCode !== null) return void live.delete(managed);
      try {
        process.kill(-child.pid!, "SIGTERM");
      } catch {
        // already gone
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {
          // already gone
        }
      }, graceMs);
      await exited;
      clearTimeout(timer);
      live.delete(managed);
    },
  };
  live.add(managed);
  void exited.then(() => live.delete(managed));
  return managed;
}
