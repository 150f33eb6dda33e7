// A child process supervised for tests, benchmarks and `svc dev`: spawned in a process group of
// its own (a terminal's Ctrl-C reaches only the process that supervises it, which then stops its
// children in order), with its output kept (a tail in memory, optionally the whole in a file),
// waited for until ready, stopped with a signal then SIGKILL, and killed whatever ends this
// process, so that a crashed test run leaves no server behind.
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, rmSync } from "node:fs";
import { constants } from "node:os";
import { waitFor } from "@svc/kube";
import { unmountUnder } from "./node-host.ts";
import { describeFailures } from "./leftovers.ts";

export interface SuperviseOptions {
  /** For messages: "kube-apiserver". */
  name: string;
  command: string;
  args: readonly string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Run as this user (PostgreSQL refuses root). */
  uid?: number;
  gid?: number;
  /** Also append the whole output to this file. */
  logPath?: string;
}

export interface SupervisedProcess {
  readonly name: string;
  readonly pid: number | undefined;
  /** Settles when the process has exited. */
  readonly exited: Promise<void>;
  running(): boolean;
  /** The last lines of its output (stdout and stderr interleaved). */
  logTail(lines?: number): string;
  /**
   * Polls `check` until it answers true; rejects with the log tail when the process exits first
   * or `timeoutMs` passes.
   */
  waitReady(check: () => Promise<boolean>, timeoutMs: number, intervalMs?: number): Promise<void>;
  /** Sends `signal` (default SIGTERM), then SIGKILL after `graceMs` (default 10 s); waits for the exit. */
  stop(options?: { signal?: NodeJS.Signals; graceMs?: number }): Promise<void>;
}

/** Output kept in memory per process: enough for a useful tail. */
const TAIL_BYTES = 64 * 1024;

const live = new Set<ChildProcess>();
const cleanups = new Set<() => void>();
const shutdownSteps = new Set<() => Promise<void>>();
let exitHooksInstalled = false;

/** Bound on the asynchronous shutdown steps run on a signal, before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 60_000;

/** Runs the steps newest first (a node stops before the control plane it joined), each one whatever the others did. */
async function runShutdownSteps(): Promise<void> {
  for (const step of [...shutdownSteps].reverse()) await step().catch(() => undefined);
}

/**
 * Whatever ends this process (normal exit, uncaught error, SIGINT/SIGTERM/SIGHUP), supervised
 * children die with it and the registered clean-ups run, newest first, each whatever the others
 * did; what they could not remove is reported on one line. On a signal, the shutdown steps run
 * first (a second signal exits at once).
 */
function installExitHooks(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  // 'exit' handlers must be synchronous: SIGKILL is, and leaves no orphan behind.
  process.on("exit", () => {
    for (const child of live) child.kill("SIGKILL");
    const failures: string[] = [];
    for (const cleanup of [...cleanups].reverse()) {
      try {
        cleanup();
      } catch (error) {
        failures.push((error as Error).message);
      }
    }
    const line = describeFailures(failures);
    if (line !== "") process.stderr.write(`${line}\n`);
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    // Exiting (rather than re-raising the signal) runs the 'exit' hook above.
    const exit = () => process.exit(128 + constants.signals[signal]);
    process.once(signal, () => {
      process.once(signal, exit);
      const grace = new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref());
      void Promise.race([runShutdownSteps(), grace]).then(exit);
    });
  }
}

/**
 * Runs `step` when a signal ends this process, before supervised children are killed (for
 * clean-ups that need them, such as deleting objects through a running API server). Steps run
 * one at a time, the latest registered first.
 */
export function onShutdownSignal(step: () => Promise<void>): () => void {
  installExitHooks();
  shutdownSteps.add(step);
  return () => shutdownSteps.delete(step);
}

/**
 * Runs `cleanup` (synchronous: the process is exiting) when this process exits, after supervised
 * children were killed, unless the returned function is called first.
 */
export function runOnExit(cleanup: () => void): () => void {
  installExitHooks();
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

/**
 * Adds a started process to `components`, in the place of an earlier one of the same name when it
 * is started again after a stop: a whole stop, in reverse start order, stays in dependency order.
 */
export function putInPlace(components: SupervisedProcess[], started: SupervisedProcess): void {
  const previous = components.findIndex((c) => c.name === started.name);
  if (previous >= 0) components[previous] = started;
  else components.push(started);
}

/**
 * Removes `dir` when this process exits, unless the returned function is called first. What is
 * mounted under it (a node's container filesystems and volumes) is unmounted first, since a
 * mount point cannot be removed (EBUSY).
 */
export function removeOnExit(dir: string): () => void {
  return runOnExit(() => {
    unmountUnder(dir);
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  });
}

export function superviseProcess(options: SuperviseOptions): SupervisedProcess {
  installExitHooks();
  const { name } = options;
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: options.env,
    uid: options.uid,
    gid: options.gid,
    // A group of its own: a terminal's Ctrl-C goes to the foreground group only (the supervisor).
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  live.add(child);
  const file = options.logPath === undefined ? undefined : createWriteStream(options.logPath, { flags: "a" });
  let tail = "";
  const keep = (chunk: Buffer | string) => {
    tail = (tail + chunk.toString()).slice(-TAIL_BYTES);
    file?.write(chunk);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const exited = new Promise<void>((resolve) => {
    const finish = () => {
      live.delete(child);
      file?.end();
      resolve();
    };
    child.once("close", finish);
    child.once("error", (error) => {
      keep(`failed to start: ${error.message}\n`);
      // A process that could not be spawned emits no 'close'.
      if (child.pid === undefined) finish();
    });
  });
  const running = () =>
    child.exitCode === null && child.signalCode === null && child.pid !== undefined && live.has(child);
  const logTail = (lines = 25) => tail.split("\n").slice(-lines).join("\n");

  return {
    name,
    pid: child.pid,
    exited,
    running,
    logTail,
    async waitReady(check, timeoutMs, intervalMs = 250) {
      const exitedWhileStarting = new Error(`${name} exited while starting`);
      try {
        await waitFor(
          async () => {
            if (!running()) throw exitedWhileStarting;
            return check();
          },
          (ready) => ready,
          { what: `${name} ready`, timeoutMs, intervalMs },
        );
      } catch (error) {
        const why =
          error === exitedWhileStarting ? "exited while starting" : `not ready after ${timeoutMs} ms`;
        throw new Error(`${name} ${why}:\n${logTail()}`, { cause: error });
      }
    },
    async stop({ signal = "SIGTERM", graceMs = 10_000 } = {}) {
      if (!live.has(child)) return exited;
      child.kill(signal);
      const killer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(killer);
    },
  };
}
