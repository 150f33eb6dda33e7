// The one shell of every long-running `svc` command (api, operator, sidecar, dashboard): reads the
// configuration, starts, and owns the exit code and the signals. A command says only how to parse
// its settings and what to start.
import { describeErrors, type Validated } from "@svc/core/schema/field-errors";
import type { Environment } from "@svc/core/schema/settings";

/** What a command started. */
export interface StartedProcess {
  /** Stops everything, gracefully; `reason` is the signal or "stopped" (for the command's log). */
  close: (reason: string) => Promise<void>;
  /**
   * Settles when the process must end on its own: resolves when it stopped by design (leadership
   * lost), rejects when a part failed after the start (the hub unreachable once elected).
   */
  stopped?: Promise<void>;
}

export interface ProcessCommand<Config> {
  /** "svc api": how its messages begin. */
  command: string;
  parse: (env: Environment) => Validated<Config>;
  start: (config: Config) => Promise<StartedProcess>;
}

/** The parts of Node's `process` runProcess uses, so that a test can run it in its own. */
export interface ProcessHost {
  env: Environment;
  writeError: (line: string) => void;
  onSignal: (signal: ShutdownSignal, handler: () => void) => void;
  exit: (code: number) => void;
}

export const SHUTDOWN_SIGNALS = ["SIGTERM", "SIGINT"] as const;
export type ShutdownSignal = (typeof SHUTDOWN_SIGNALS)[number];

/** Exit codes of every svc command (docs/troubleshooting.md). */
export const EXIT = { ok: 0, failed: 1, badConfiguration: 2 } as const;

const nodeProcess: ProcessHost = {
  env: process.env,
  writeError: (line) => process.stderr.write(`${line}\n`),
  onSignal: (signal, handler) => process.once(signal, handler),
  exit: (code) => process.exit(code),
};

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs `command`: a configuration error is one line and exit code 2; a start that fails, one line
 * and 1; SIGTERM or SIGINT closes it and exits 0 (1 when the close fails); a process that stops on
 * its own is closed and exits 1, so that Kubernetes restarts it.
 */
export async function runProcess<Config>(
  command: ProcessCommand<Config>,
  host: ProcessHost = nodeProcess,
): Promise<void> {
  const config = command.parse(host.env);
  if (!config.ok) {
    host.writeError(`${command.command}: invalid configuration: ${describeErrors(config.errors)}`);
    host.exit(EXIT.badConfiguration);
    return;
  }
  let started: StartedProcess;
  try {
    started = await command.start(config.value);
  } catch (error) {
    host.writeError(`${command.command}: cannot start: ${messageOf(error)}`);
    host.exit(EXIT.failed);
    return;
  }
  let stopping = false;
  const stop = (reason: string, code: number) => {
    if (stopping) return;
    stopping = true;
    started.close(reason).then(
      () => {
        host.exit(code);
      },
      (error: unknown) => {
        host.writeError(`${command.command}: shutdown failed: ${messageOf(error)}`);
        host.exit(EXIT.failed);
      },
    );
  };
  for (const signal of SHUTDOWN_SIGNALS)
    host.onSignal(signal, () => {
      stop(signal, EXIT.ok);
    });
  started.stopped?.then(
    () => {
      stop("stopped", EXIT.failed);
    },
    (error: unknown) => {
      if (stopping) return;
      host.writeError(`${command.command}: cannot start: ${messageOf(error)}`);
      stop("failed", EXIT.failed);
    },
  );
}
