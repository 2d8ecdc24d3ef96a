// What a stopped real node must not leave on the machine, shared by the real-node tests.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";

/** net.ipv4.ip_forward now ("0" or "1"); node.sh sets it while the node runs and restores it on stop. */
export function ipForward(): string {
  return readFileSync("/proc/sys/net/ipv4/ip_forward", "utf8").trim();
}

/**
 * Every trace of the node left on the machine: processes (containerd, kubelet, kube-proxy, CoreDNS, shims), mounts,
 * cgroups, the bridge and its veths, kubelet's and kube-proxy's iptables chains and rules, and its folder (with the
 * volumes' folders); `ipForwardBefore` is compared too.
 */
export function leftovers(nodeDir: string, nodeName: string, ipForwardBefore: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
    } catch {
      continue; // the process ended meanwhile
    }
    if (cmdline.includes(nodeDir)) found.push(`process ${pid}: ${cmdline}`);
  }
  for (const line of readFileSync("/proc/self/mountinfo", "utf8").split("\n"))
    if (line.includes(nodeDir)) found.push(`mount: ${line}`);
  for (const hierarchy of readdirSync("/sys/fs/cgroup"))
    if (existsSync(`/sys/fs/cgroup/${hierarchy}/${nodeName}`)) found.push(`cgroup: ${hierarchy}/${nodeName}`);
  for (const link of readdirSync("/sys/class/net")) {
    const master = path.join("/sys/class/net", link, "master");
    if (link === "crdgen0" || (existsSync(master) && path.basename(readlinkSync(master)) === "crdgen0"))
      found.push(`network link: ${link}`);
  }
  // kubelet's chains (KUBE-FIREWALL drops non-loopback traffic to 127.0.0.0/8) and kube-proxy's (KUBE-SERVICES,
  // KUBE-SVC-*, KUBE-POSTROUTING, ...), which would keep rewriting traffic to the ClusterIPs of a node long gone.
  for (const table of ["filter", "nat", "mangle"]) {
    const rules = execFileSync("iptables", ["-t", table, "-S"], { encoding: "utf8" });
    for (const rule of rules.split("\n")) if (rule.includes("KUBE-")) found.push(`iptables -t ${table}: ${rule}`);
  }
  if (ipForward() !== ipForwardBefore) found.push(`net.ipv4.ip_forward: ${ipForward()}, was ${ipForwardBefore}`);
  if (existsSync(nodeDir)) found.push(`folder: ${nodeDir}`);
  return found;
}
