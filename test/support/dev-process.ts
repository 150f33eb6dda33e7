// `svc dev` as a user runs it (on free ports, stdin closed, without a node), for the end-to-end
// tests that drive its processes: it is started in a process group of its own, as a shell starts
// a foreground job, its banner read, and it is stopped with Ctrl-C as a terminal sends it.
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { afterAll } from "vitest";
import { runOnExit } from "@svc/localkube";

const repoRoot = join(import.meta.dirname, "../..");
const folders: string[] = [];

afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

export interface RunningDev {
  child: ChildProcessByStdio<null, Readable, null>;
  banner: string[];
  /** The URL or path after a banner label. */
  field: (label: string) => string;
  /** The banner lines under a label (the label's own and the unlabelled ones after it). */
  section: (label: string) => string[];
  devDir: string;
  /** What it printed to stdout after the banner (its processes' logs), line by line so far. */
  printed: () => string[];
}

/** Starts `svc dev` with stdin closed, and reads its banner. `devDir`: an earlier run's SVC_DEV_DIR. */
export async function startDev(env: Record<string, string>, devDir?: string): Promise<RunningDev> {
  devDir ??= await mkdtemp(join(tmpdir(), "svc-dev-test-"));
  folders.push(devDir);
  const child = spawn(process.execPath, [join(repoRoot, "packages/cli/src/main.ts"), "dev"], {
    env: {
      ...process.env,
      SVC_DEV_DIR: devDir,
      SVC_API_PORT: "0",
      SVC_METRICS_PORT: "0",
      SVC_SIDECAR_PORT: "0",
      SVC_OPERATOR_METRICS_PORT: "0",
      SVC_DASHBOARD_PORT: "0",
      // One node runs per machine, and the test run's own is up: svc dev runs without one here
      // (its node is the same harness, tested by test/e2e/node-*.test.ts).
      SVC_DEV_NODE: "false",
      ...env,
    },
    detached: true,
    stdio: ["ignore", "pipe", "inherit"],
  });
  // In a group of its own it outlives a test process ended by Ctrl-C: it gets that Ctrl-C then.
  const forget = runOnExit(() => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-(child.pid ?? 0), "SIGINT");
  });
  child.once("exit", forget);
  const banner: string[] = [];
  for await (const line of createInterface({ input: child.stdout })) {
    banner.push(line);
    if (line.startsWith("svc dev: ready")) break;
  }
  let afterBanner = "";
  // readline paused the stream when the loop ended: read on, so a full pipe never blocks svc dev.
  child.stdout.on("data", (chunk: Buffer) => (afterBanner += chunk.toString())).resume();
  const labelled = (line: string, label: string) => line.trimStart().startsWith(label);
  const field = (label: string): string => {
    const line = banner.find((l) => labelled(l, label));
    const match = /(https?:\/\/\S+|\/\S+)/.exec(line?.slice(line.indexOf(label) + label.length) ?? "");
    if (!match?.[1]) throw new Error(`no ${label} in the banner:\n${banner.join("\n")}`);
    return match[1];
  };
  const section = (label: string): string[] => {
    const start = banner.findIndex((l) => labelled(l, label));
    if (start < 0) return [];
    const end = banner.findIndex((l, i) => i > start && !l.startsWith("   ") && l.trim() !== "");
    return banner.slice(start, end < 0 ? undefined : end).map((l) => l.trim());
  };
  const printed = () => afterBanner.split("\n").filter((line) => line !== "");
  return { child, banner, field, section, devDir, printed };
}

/**
 * Ctrl-C as a terminal sends it, to the whole foreground process group: resolves with the exit
 * code once `svc dev` has removed everything.
 */
export async function stopDev(dev: RunningDev): Promise<number | null> {
  process.kill(-(dev.child.pid ?? 0), "SIGINT");
  const [code] = (await once(dev.child, "exit")) as [number | null];
  return code;
}
