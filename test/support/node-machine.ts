// What a run of `svc dev` or of the local node may leave on this machine, listed so that a test
// compares before and after: processes (working in or naming the run's folder, and the pods'
// containers), mounts, the pod network's links, network namespaces and iptables rules.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

export interface MachineState {
  /** Processes working in the folder or naming it (components, shims). */
  processes: string[];
  /** Processes in the kubelet's pod cgroups (containers). */
  containers: string[];
  /** Mount points under the folder. */
  mounts: string[];
  /** The pod network's bridge and veths. */
  links: string[];
  netns: string[];
  /** Rules and chains of the node (KUBE-, CNI-) and of the API guard (SVC-), counters left out. */
  iptables: string[];
}

function lines(command: string, args: string[]): string[] {
  return spawnSync(command, args, { encoding: "utf8" })
    .stdout.split("\n")
    .filter((line) => line !== "");
}

/** The processes of `dir` (working in it or naming it) in process group `pgid`. */
export function processesOfInGroup(dir: string, pgid: number): string[] {
  return processesOf(dir, false).filter((line) => {
    const stat = readFileSync(`/proc/${line.split(" ")[0] ?? ""}/stat`, "utf8");
    // Field 5 (pgrp), counted after the name, which may hold spaces.
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) === pgid;
  });
}

function processesOf(dir: string, inPods: boolean): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((entry) => /^\d+$/.test(entry))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      const cgroups = readFileSync(`/proc/${pid}/cgroup`, "utf8");
      let cwd = "";
      try {
        cwd = readlinkSync(`/proc/${pid}/cwd`);
      } catch {
        // A zombie has none.
      }
      const ofDir = cwd.startsWith(dir) || cmdline.includes(dir);
      if (inPods ? cgroups.includes("/kubepods") : ofDir) found.push(`${pid} ${cmdline}`);
    } catch {
      // Ended while being read.
    }
  }
  return found;
}

/** The machine's state that a run in `dir` may change. */
export function machineState(dir: string): MachineState {
  return {
    processes: processesOf(dir, false),
    containers: processesOf(dir, true),
    mounts: readFileSync("/proc/self/mounts", "utf8")
      .split("\n")
      .map((line) => line.split(" ")[1] ?? "")
      .filter((path) => path.startsWith(dir)),
    links: lines("ip", ["-o", "link", "show"])
      .map((line) => /^\d+: ([^@:]+)/.exec(line)?.[1] ?? "")
      .filter((name) => name === "svc-cni0" || name.startsWith("veth")),
    netns: lines("ip", ["netns", "list"]),
    iptables: lines("iptables-save", [])
      .filter((line) => /(KUBE-|CNI-|SVC-)/.test(line))
      .map((line) => line.replace(/ \[\d+:\d+\]$/, "")),
  };
}
