// The sharding e2e's fleet (test helper, not a test): manager processes of one sharding group (sharding-child.ts), what
// they print (reconciles, bytes, owned ranges), and the check that no two members' reconciles of one object overlap.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import type { KubernetesObject, ResourceDescriptor } from "@crdgen/runtime/client";

/** The MySQLClusters the members reconcile, as far as the tests read them. */
export interface Cluster extends KubernetesObject {
  spec?: { version: string; replicas?: number };
  status?: { observedGeneration?: number };
}
export const clustersResource: ResourceDescriptor<Cluster> = {
  group: "example.com",
  version: "v1",
  plural: "mysqlclusters",
  kind: "MySQLCluster",
  namespaced: true,
};

const childScript = path.join(path.dirname(fileURLToPath(import.meta.url)), "sharding-child.js");

export interface Reconcile {
  member: string;
  uid: string;
  start: number;
  end: number;
  /** The object's namespace. */
  namespace: string;
}

/** The manager processes of one group and what they print. */
export class Fleet {
  readonly reconciles: Reconcile[] = [];
  readonly bytes = new Map<string, number>();
  /** The bytes of the owned kind's LIST/WATCH (ConfigMaps, in namespace mode). */
  readonly childBytes = new Map<string, number>();
  readonly owned = new Map<string, number>();
  readonly processes = new Map<string, ChildProcess>();
  private readonly stderr = new Map<string, string[]>();

  constructor(
    private readonly kubeconfig: string,
    private readonly group: string,
    /** The child's further argv: [workers, field] (see sharding-child.ts). */
    private readonly args: readonly string[] = [],
  ) {}

  start(member: string): void {
    const proc = spawn(process.execPath, [childScript, this.kubeconfig, member, this.group, ...this.args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.processes.set(member, proc);
    this.stderr.set(member, []);
    readline.createInterface({ input: proc.stdout }).on("line", (line) => this.read(member, line));
    readline.createInterface({ input: proc.stderr }).on("line", (line) => this.stderr.get(member)?.push(line));
  }

  private read(member: string, line: string): void {
    const msg = JSON.parse(line) as {
      r?: [string, number, number, string];
      bytes?: number;
      childBytes?: number;
      owned?: number;
    };
    if (msg.r) this.reconciles.push({ member, uid: msg.r[0], start: msg.r[1], end: msg.r[2], namespace: msg.r[3] });
    if (msg.bytes !== undefined) this.bytes.set(member, msg.bytes);
    if (msg.childBytes !== undefined) this.childBytes.set(member, msg.childBytes);
    if (msg.owned !== undefined) this.owned.set(member, msg.owned);
  }

  signal(member: string, signal: NodeJS.Signals): void {
    this.processes.get(member)?.kill(signal);
  }

  async exited(member: string): Promise<number | null> {
    const proc = this.processes.get(member);
    if (!proc) return null;
    if (proc.exitCode === null && proc.signalCode === null) await new Promise((r) => proc.once("exit", r));
    this.processes.delete(member);
    this.owned.delete(member);
    return proc.exitCode;
  }

  /** Every running member reports owned ranges (it has joined and holds its share). */
  allOwn(members: readonly string[]): boolean {
    return members.every((m) => (this.owned.get(m) ?? 0) > 0);
  }

  logs(): string {
    return [...this.stderr].map(([m, lines]) => `${m}:\n${lines.slice(-20).join("\n")}`).join("\n");
  }

  stopAll(): void {
    for (const proc of this.processes.values()) if (proc.exitCode === null) proc.kill("SIGKILL");
  }
}

/** Pairs of one object's reconciles by two members that overlap in time. */
export function overlaps(reconciles: readonly Reconcile[]): string[] {
  const byUid = new Map<string, Reconcile[]>();
  for (const r of reconciles) byUid.set(r.uid, [...(byUid.get(r.uid) ?? []), r]);
  const found: string[] = [];
  for (const [uid, list] of byUid) {
    list.sort((a, b) => a.start - b.start);
    for (let i = 0; i < list.length; i++) {
      const a = list[i] as Reconcile;
      for (let j = i + 1; j < list.length && (list[j] as Reconcile).start < a.end; j++) {
        const b = list[j] as Reconcile;
        if (b.member !== a.member)
          found.push(`${uid}: ${a.member} [${a.start}, ${a.end}] and ${b.member} [${b.start}]`);
      }
    }
  }
  return found;
}

export async function inBatches<T>(
  items: readonly T[],
  size: number,
  fn: (item: T) => Promise<unknown>,
): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}
