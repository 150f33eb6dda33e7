// `svc flags rollout watch NAME`: reads the plan every few seconds and prints each change of its
// phase, waves, clusters and workloads as a line, until it finishes: exit 0 when it succeeded,
// 1 when it rolled back, failed or was rejected. Stopping (Ctrl-C) ends the request in flight
// and exits 130; the plan goes on. The clock, the sleep and the reads are passed in, so the
// loop is unit-tested with a fake client.
import { stringify } from "yaml";
import { ApiError, ExitError, reason } from "./client.ts";
import { EXIT } from "./connection.ts";
import type { Output } from "./options.ts";
import { isFinished, shownPhase, watchLines, type RolloutView } from "./rollout-render.ts";

export interface WatchIo {
  read: (signal: AbortSignal) => Promise<RolloutView>;
  /** stdout: the changes. */
  write: (text: string) => void;
  /** stderr: reads that failed and are tried again. */
  warn: (text: string) => void;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  now: () => Date;
  /** Aborted to stop; its reason, when a number, is the exit code (130 for SIGINT, 143 for SIGTERM). */
  signal: AbortSignal;
}

/** 128 + SIGINT's number: what a shell reports for a command stopped with Ctrl-C. */
export const EXIT_INTERRUPTED = 130;

/** A read that may pass when tried again: the server unreachable, restarting or overloaded. */
export function isTransient(error: unknown): boolean {
  if (error instanceof ApiError) return error.status >= 500 || error.status === 429;
  return !(error instanceof ExitError);
}

const time = (now: Date) => now.toISOString().replace(/\.[0-9]{3}Z$/, "Z");

function stopped(name: string, last: RolloutView | undefined, signal: AbortSignal): ExitError {
  const code = typeof signal.reason === "number" ? signal.reason : EXIT_INTERRUPTED;
  const phase = last === undefined ? "" : ` (${shownPhase(last)})`;
  return new ExitError(code, `stopped watching; plan ${name} goes on${phase}: svc flags rollout get ${name}`);
}

/** What one read prints: the changed lines (table), or the plan itself when it changed (json, yaml). */
function printed(output: Output, last: RolloutView | undefined, view: RolloutView, now: Date): string {
  if (output === "table")
    return watchLines(last, view)
      .map((line) => `${time(now)}  ${line}\n`)
      .join("");
  if (last !== undefined && JSON.stringify(last) === JSON.stringify(view)) return "";
  return output === "json" ? `${JSON.stringify(view)}\n` : `---\n${stringify(view)}`;
}

/** Returns when the plan succeeded; throws ExitError otherwise (1: it did not; 130: stopped). */
export async function watchPlan(
  name: string,
  output: Output,
  intervalMs: number,
  io: WatchIo,
): Promise<void> {
  let last: RolloutView | undefined;
  let failing = false;
  for (;;) {
    let view: RolloutView | undefined;
    try {
      view = await io.read(io.signal);
    } catch (error) {
      if (io.signal.aborted) throw stopped(name, last, io.signal);
      if (!isTransient(error)) throw error;
      if (!failing)
        io.warn(`cannot read plan ${name} (${reason(error)}); trying again every ${intervalMs / 1000}s\n`);
      failing = true;
    }
    if (view !== undefined) {
      if (failing) io.warn(`plan ${name} read again\n`);
      failing = false;
      const text = printed(output, last, view, io.now());
      if (text !== "") io.write(text);
      last = view;
      if (isFinished(view)) {
        if (shownPhase(view) === "Succeeded") return;
        const message = view.status.message ?? "";
        throw new ExitError(
          EXIT.error,
          `plan ${name} ${shownPhase(view)}${message === "" ? "" : `: ${message}`}`,
        );
      }
    }
    await io.sleep(intervalMs, io.signal);
    if (io.signal.aborted) throw stopped(name, last, io.signal);
  }
}
