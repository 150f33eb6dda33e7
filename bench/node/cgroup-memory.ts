// A container's memory as the kernel accounts it (cgroup v1 memory controller on the local node):
// the working set the kubelet reports and evicts by, and the anonymous memory.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { V1Pod } from "@kubernetes/client-node";

const MB = 1024 * 1024;

export interface CgroupMemory {
  usageMb: number;
  /** usage − inactive page cache: what the kubelet reports and evicts by. */
  workingSetMb: number;
  /** anonymous memory. */
  rssMb: number;
}

/** The memory cgroup (v1) of a container: the folder named by its id under kubepods. */
function findCgroup(dir: string, containerId: string, depth = 0): string | undefined {
  if (depth > 4) return undefined;
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (!statSync(path).isDirectory()) continue;
    if (entry === containerId) return path;
    const found = findCgroup(path, containerId, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

export function cgroupMemory(pod: V1Pod, container: string): CgroupMemory {
  const statuses = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])];
  const id = statuses.find((s) => s.name === container)?.containerID?.replace(/^containerd:\/\//, "") ?? "";
  const dir = findCgroup("/sys/fs/cgroup/memory/kubepods", id);
  if (dir === undefined) throw new Error(`no memory cgroup for container ${container} (${id})`);
  const usage = Number(readFileSync(join(dir, "memory.usage_in_bytes"), "utf8"));
  const stat = Object.fromEntries(
    readFileSync(join(dir, "memory.stat"), "utf8")
      .trim()
      .split("\n")
      .map((line) => line.split(" ") as [string, string]),
  );
  const inactiveFile = Number(stat["total_inactive_file"] ?? 0);
  return {
    usageMb: usage / MB,
    workingSetMb: (usage - inactiveFile) / MB,
    rssMb: Number(stat["total_rss"] ?? 0) / MB,
  };
}
