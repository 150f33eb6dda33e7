import { describe, expect, it } from "vitest";
import type { Validated } from "@svc/core/schema/field-errors";
import {
  runProcess,
  type ProcessHost,
  type ShutdownSignal,
  type StartedProcess,
} from "../src/run-process.ts";

/** A process of its own: what runProcess wrote, the code it exited with, and its signals to send. */
function testHost(env: Record<string, string> = {}) {
  const errors: string[] = [];
  const handlers = new Map<ShutdownSignal, () => void>();
  let resolveExit: (code: number) => void = () => undefined;
  const exited = new Promise<number>((resolve) => (resolveExit = resolve));
  const host: ProcessHost = {
    env,
    writeError: (line) => errors.push(line),
    onSignal: (signal, handler) => handlers.set(signal, handler),
    exit: (code) => {
      resolveExit(code);
    },
  };
  return { host, errors, exited, signal: (name: ShutdownSignal) => handlers.get(name)?.() };
}

const parsePort = (env: Record<string, string | undefined>): Validated<number> =>
  env["PORT"] === "bad"
    ? { ok: false, errors: [{ field: "PORT", message: 'must be a port number, got "bad"' }] }
    : { ok: true, value: 8090 };

function started(closes: string[], extra: Partial<StartedProcess> = {}): StartedProcess {
  return {
    close: (reason) => {
      closes.push(reason);
      return Promise.resolve();
    },
    ...extra,
  };
}

describe("runProcess", () => {
  it("a bad setting is one line and exit code 2, and nothing starts", async () => {
    const { host, errors, exited } = testHost({ PORT: "bad" });
    let starts = 0;
    await runProcess(
      { command: "svc api", parse: parsePort, start: () => (starts++, Promise.reject(new Error())) },
      host,
    );
    expect(await exited).toBe(2);
    expect(errors).toEqual(['svc api: invalid configuration: PORT: must be a port number, got "bad"']);
    expect(starts).toBe(0);
  });

  it("a start that fails is one line and exit code 1", async () => {
    const { host, errors, exited } = testHost();
    await runProcess(
      {
        command: "svc operator",
        parse: parsePort,
        start: () => Promise.reject(new Error("hub unreachable")),
      },
      host,
    );
    expect(await exited).toBe(1);
    expect(errors).toEqual(["svc operator: cannot start: hub unreachable"]);
  });

  it.each(["SIGTERM", "SIGINT"] as const)("%s closes once and exits 0", async (name) => {
    const { host, exited, signal } = testHost();
    const closes: string[] = [];
    await runProcess(
      { command: "svc api", parse: parsePort, start: () => Promise.resolve(started(closes)) },
      host,
    );
    signal(name);
    signal(name === "SIGTERM" ? "SIGINT" : "SIGTERM");
    expect(await exited).toBe(0);
    expect(closes).toEqual([name]);
  });

  it("a close that fails exits 1 and says why", async () => {
    const { host, errors, exited, signal } = testHost();
    await runProcess(
      {
        command: "svc dashboard",
        parse: parsePort,
        start: () => Promise.resolve({ close: () => Promise.reject(new Error("port stuck")) }),
      },
      host,
    );
    signal("SIGTERM");
    expect(await exited).toBe(1);
    expect(errors).toEqual(["svc dashboard: shutdown failed: port stuck"]);
  });

  it("a process that stops on its own is closed and exits 1", async () => {
    const { host, errors, exited } = testHost();
    const closes: string[] = [];
    await runProcess(
      {
        command: "svc operator",
        parse: parsePort,
        start: () => Promise.resolve(started(closes, { stopped: Promise.resolve() })),
      },
      host,
    );
    expect(await exited).toBe(1);
    expect(closes).toEqual(["stopped"]);
    expect(errors).toEqual([]);
  });

  it("a part that fails after the start says so, is closed and exits 1", async () => {
    const { host, errors, exited } = testHost();
    const closes: string[] = [];
    const stopped = Promise.reject(new Error("CRDs refused"));
    await runProcess(
      {
        command: "svc operator",
        parse: parsePort,
        start: () => Promise.resolve(started(closes, { stopped })),
      },
      host,
    );
    expect(await exited).toBe(1);
    expect(errors).toEqual(["svc operator: cannot start: CRDs refused"]);
    expect(closes).toEqual(["failed"]);
  });
});
