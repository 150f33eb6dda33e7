// The machine-wide state a local node creates outside its own folder, and its removal: the pod
// network's bridge, network namespaces, iptables chains of the kubelet, kube-proxy and the CNI
// plugins, mounts, kernel settings, and container processes that outlive their runtime.
// Everything here is synchronous so that it can also run in an 'exit' hook, where a crashed run
// has no event loop left.
import { execFileSync, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isUnder, killAll, processesMatching, quiet } from "./host-commands.ts";

/** The pod network: one bridge on this machine, its gateway is the node's address. */
export const POD_NETWORK = {
  bridge: "svc-cni0",
  subnet: "10.88.0.0/16",
  gateway: "10.88.0.1",
  prefixLength: 16,
} as const;

/** Kernel settings a node needs (routing between pods and Services, bridged traffic through iptables). */
const SYSCTLS = ["net/ipv4/ip_forward", "net/bridge/bridge-nf-call-iptables"] as const;

/** Chains made by the kubelet (KUBE-FIREWALL...), kube-proxy (KUBE-SERVICES...) and CNI (CNI-...). */
const OUR_CHAIN = /^(KUBE-|CNI-)/;

const NETNS_DIR = "/var/run/netns";

/** The chain that keeps a control plane's kube-apiserver, listening on every address, local (api-guard.ts). */
export const API_GUARD_CHAIN = "SVC-LOCAL-API-GUARD";

/** Who runs this machine's node: "<pid> <containerd socket>". */
const LOCK_PATH = "/run/svc-local-node.lock";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The process id of the live process that runs this machine's node, if another does. */
export function nodeOwner(): number | undefined {
  if (!existsSync(LOCK_PATH)) return undefined;
  const pid = Number(readFileSync(LOCK_PATH, "utf8").split(" ")[0]);
  return Number.isInteger(pid) && pid !== process.pid && alive(pid) ? pid : undefined;
}

/**
 * Takes the machine's node for this process. A lock left by a process that died without its exit
 * hooks (SIGKILL) means its node's state is still on the machine: it is removed first.
 */
export function lockHost(containerdSocket: string): void {
  const owner = nodeOwner();
  if (owner !== undefined)
    throw new Error(
      `process ${owner} already runs a local node on this machine (one at a time: it owns ${POD_NETWORK.bridge} and the KUBE-/CNI- iptables chains)`,
    );
  reclaimHost();
  writeFileSync(
    LOCK_PATH,
    `${process.pid} ${containerdSocket} ${containerdSocket.slice(0, containerdSocket.lastIndexOf("/"))}\n`,
  );
}

/**
 * Removes the node state of a run that died without its exit hooks (SIGKILL), as its lock names
 * it, and the lock; nothing while a live process runs the node.
 */
export function reclaimHost(): void {
  if (!existsSync(LOCK_PATH) || nodeOwner() !== undefined) return;
  const [pid = "", socket = "", dir = ""] = readFileSync(LOCK_PATH, "utf8").trim().split(" ");
  if (Number(pid) === process.pid) return;
  tearDownHost(undefined, socket, dir);
  rmSync(LOCK_PATH, { force: true });
}

export function unlockHost(): void {
  if (existsSync(LOCK_PATH) && Number(readFileSync(LOCK_PATH, "utf8").split(" ")[0]) === process.pid)
    rmSync(LOCK_PATH, { force: true });
}

/**
 * What this kernel or container refuses a node, probed as root: iptables (CAP_NET_ADMIN),
 * bridged traffic through iptables (br_netfilter), and overlay mounts in the temp folder, where
 * containerd's snapshots go (CAP_SYS_ADMIN; an overlay upper layer cannot be an overlay). One
 * line each; empty when all work.
 */
export function hostRefusals(): string[] {
  const refused: string[] = [];
  if (!quiet("iptables", ["-w", "5", "-S", "INPUT"]).ok)
    refused.push("a working iptables (it needs CAP_NET_ADMIN and the kernel's netfilter)");
  if (!existsSync("/proc/sys/net/bridge") && !quiet("modprobe", ["br_netfilter"]).ok)
    refused.push("the br_netfilter kernel module (pod traffic through kube-proxy's rules)");
  const dir = mkdtempSync(join(tmpdir(), "svc-overlay-probe-"));
  try {
    const [lower, upper, work, merged] = ["lower", "upper", "work", "merged"].map((name) => join(dir, name));
    for (const path of [lower, upper, work, merged]) mkdirSync(path ?? "");
    const options = `lowerdir=${lower ?? ""},upperdir=${upper ?? ""},workdir=${work ?? ""}`;
    if (quiet("mount", ["-t", "overlay", "overlay", "-o", options, merged ?? ""]).ok)
      quiet("umount", [merged ?? ""]);
    else refused.push(`overlay mounts under ${tmpdir()} (containerd's snapshots; they need CAP_SYS_ADMIN)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return refused;
}

/** What setUpHost changed, for tearDownHost to undo. */
export interface HostState {
  readonly sysctls: Record<string, string>;
  readonly netnsBefore: readonly string[];
}

function listNetns(): string[] {
  return existsSync(NETNS_DIR) ? readdirSync(NETNS_DIR) : [];
}

/** Sets the kernel settings and creates the bridge with the gateway address (the kubelet's node IP must exist). */
export function setUpHost(): HostState {
  const sysctls: Record<string, string> = {};
  for (const name of SYSCTLS) {
    const path = `/proc/sys/${name}`;
    if (name.startsWith("net/bridge/") && !existsSync(path)) execFileSync("modprobe", ["br_netfilter"]);
    sysctls[name] = readFileSync(path, "utf8").trim();
    writeFileSync(path, "1");
  }
  const { bridge, gateway, prefixLength } = POD_NETWORK;
  if (!quiet("ip", ["link", "show", bridge]).ok)
    execFileSync("ip", ["link", "add", bridge, "type", "bridge"]);
  quiet("ip", ["addr", "add", `${gateway}/${prefixLength}`, "dev", bridge]);
  execFileSync("ip", ["link", "set", bridge, "up"]);
  return { sysctls, netnsBefore: listNetns() };
}

/**
 * Kills what a runtime left running: containerd's shims for the socket `containerdSocket`, and
 * every process in the kubelet's pod cgroups (the containers; one node runs per machine).
 */
export function killContainers(containerdSocket: string): void {
  killAll(processesMatching((p) => isShimOf(p.cmdline, containerdSocket)));
  killAll(processesMatching((p) => p.cgroups.includes("/kubepods")));
}

function isShimOf(cmdline: string, containerdSocket: string): boolean {
  return containerdSocket !== "" && cmdline.includes("containerd-shim") && cmdline.includes(containerdSocket);
}

function mountsUnder(dir: string): string[] {
  return readFileSync("/proc/self/mounts", "utf8")
    .split("\n")
    .map((line) => line.split(" ")[1] ?? "")
    .map((path) => path.replaceAll("\\040", " "))
    .filter((path) => isUnder(path, dir));
}

/** Unmounts everything mounted under `dir` (container root filesystems, volumes), deepest first. */
export function unmountUnder(dir: string): void {
  for (const path of mountsUnder(dir).reverse()) quiet("umount", ["-l", path]);
}

/** Deletes the iptables rules and chains of the kubelet, kube-proxy and CNI, in every table. */
export function removeIptablesChains(): void {
  for (const [save, restore] of [
    ["iptables-save", "iptables-restore"],
    ["ip6tables-save", "ip6tables-restore"],
  ] as const) {
    const dump = quiet(save, []);
    if (!dump.ok) continue;
    const script = iptablesRemovalScript(dump.out);
    if (script !== "")
      spawnSync(restore, ["--noflush"], { input: script, stdio: ["pipe", "ignore", "ignore"] });
  }
}

/**
 * The iptables-restore input that removes our chains from an iptables-save dump: rules that jump
 * to them from other chains are deleted, then the chains are flushed and deleted.
 */
export function iptablesRemovalScript(dump: string): string {
  const out: string[] = [];
  let table = "";
  let lines: string[] = [];
  const flushTable = () => {
    if (table !== "" && lines.length > 0) out.push(`*${table}`, ...lines, "COMMIT");
    lines = [];
  };
  const ours: string[] = [];
  for (const line of dump.split("\n")) {
    if (line.startsWith("*")) {
      flushTable();
      table = line.slice(1);
      ours.length = 0;
    } else if (line.startsWith(":")) {
      const chain = line.slice(1).split(" ")[0] ?? "";
      if (OUR_CHAIN.test(chain)) ours.push(chain);
    } else if (line.startsWith("-A ")) {
      const chain = line.split(" ")[1] ?? "";
      const target = / -[jg] (\S+)/.exec(line)?.[1] ?? "";
      if (!OUR_CHAIN.test(chain) && OUR_CHAIN.test(target)) lines.push(`-D ${line.slice(3)}`);
    } else if (line === "COMMIT") {
      for (const chain of ours) lines.push(`-F ${chain}`);
      for (const chain of ours) lines.push(`-X ${chain}`);
    }
  }
  flushTable();
  return out.length === 0 ? "" : `${out.join("\n")}\n`;
}

/** Network namespaces of pods that no process holds any more (the CNI plugin's "cni-..."). */
function removeOrphanNetns(keep: readonly string[]): void {
  for (const name of listNetns()) {
    if (!name.startsWith("cni-") || keep.includes(name)) continue;
    if (quiet("ip", ["netns", "pids", name]).out.trim() === "") quiet("ip", ["netns", "delete", name]);
  }
}

/** The pods' veths: the host ends of their links, attached to the bridge. */
function podLinks(): string[] {
  return quiet("ip", ["-o", "link", "show", "master", POD_NETWORK.bridge])
    .out.split("\n")
    .map((line) => /^\d+: ([^@:]+)/.exec(line)?.[1] ?? "")
    .filter((name) => name !== "");
}

/**
 * What a node left on the machine after its teardown, one line each (none expected): the bridge,
 * veths, iptables chains, pod network namespaces, shims or container processes, mounts under `dir`.
 */
export function hostLeftovers(containerdSocket: string, dir: string): string[] {
  const left: string[] = [];
  const veths = podLinks();
  if (veths.length > 0) left.push(`veths ${veths.join(", ")}`);
  if (quiet("ip", ["link", "show", POD_NETWORK.bridge]).ok) left.push(`the bridge ${POD_NETWORK.bridge}`);
  const dump = quiet("iptables-save", []).out;
  // The API guard's chain stays while another control plane's port still jumps to it.
  const guardInUse = dump.includes(`-j ${API_GUARD_CHAIN}`);
  const chains = dump
    .split("\n")
    .filter((line) => line.startsWith(":"))
    .map((line) => line.slice(1).split(" ")[0] ?? "")
    .filter((chain) => OUR_CHAIN.test(chain) || (chain === API_GUARD_CHAIN && !guardInUse));
  if (chains.length > 0) left.push(`iptables chains ${chains.join(", ")}`);
  const netns = listNetns().filter((name) => name.startsWith("cni-"));
  if (netns.length > 0) left.push(`network namespaces ${netns.join(", ")}`);
  const processes = processesMatching(
    (p) => isShimOf(p.cmdline, containerdSocket) || p.cgroups.includes("/kubepods"),
  );
  if (processes.length > 0) left.push(`processes ${processes.join(", ")}`);
  const mounts = mountsUnder(dir);
  if (mounts.length > 0) left.push(`mounts ${mounts.join(", ")}`);
  return left;
}

/** Undoes setUpHost and what the node's components added; every step is tried. */
export function tearDownHost(state: HostState | undefined, containerdSocket: string, dir: string): void {
  if (containerdSocket !== "") killContainers(containerdSocket);
  unmountUnder(dir);
  removeOrphanNetns(state?.netnsBefore ?? []);
  removeIptablesChains();
  for (const veth of podLinks()) quiet("ip", ["link", "delete", veth]);
  quiet("ip", ["link", "delete", POD_NETWORK.bridge]);
  for (const [name, value] of Object.entries(state?.sysctls ?? {})) {
    try {
      writeFileSync(`/proc/sys/${name}`, value);
    } catch {
      // Left as set: harmless, and nothing else to try.
    }
  }
}
