// The `svc` command as a user runs it: --help for each command, and a bad setting refused with
// one line naming it and exit code 2, before anything starts (no stack trace).
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const main = join(import.meta.dirname, "../src/main.ts");

function svc(args: string[], env: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, [main, ...args], {
    env: { PATH: process.env["PATH"] ?? "", ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe("svc <command> --help", () => {
  it.each([
    ["api", "SVC_DATABASE_PATH", "svc.sqlite"],
    ["operator", "SVC_OPERATOR_CONCURRENCY", "16"],
    ["dashboard", "SVC_API_URL", "http://127.0.0.1:8090"],
    ["sidecar", "SVC_SIDECAR_PORT", "8514"],
    ["dev", "SVC_DEV_CLUSTERS", "1"],
    ["reset-admin-password", "SVC_DATABASE_PATH", "svc.sqlite"],
  ])("svc %s --help lists %s with its default %s", (command, variable, fallback) => {
    const { code, stdout } = svc([command, "--help"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^usage: svc ${command}`));
    expect(stdout).toMatch(new RegExp(`\\n  ${variable} +${fallback.replaceAll(".", "\\.")} `));
  });

  it("svc --help lists every command, and an unknown one exits 2", () => {
    expect(svc(["--help"]).stdout).toMatch(/commands:\n(.|\n)*reset-admin-password/);
    const unknown = svc(["deploy"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('svc: unknown command "deploy"');
  });
});

describe("a bad setting", () => {
  it.each([
    ["api", { SVC_API_PORT: "80a" }, "SVC_API_PORT"],
    ["operator", { SVC_OPERATOR_CONCURRENCY: "0" }, "SVC_OPERATOR_CONCURRENCY"],
    ["dashboard", { SVC_API_URL: "ftp://example" }, "SVC_API_URL"],
    ["sidecar", { POD_NAMESPACE: "shop", SVC_SIDECAR_PORT: "99999" }, "SVC_SIDECAR_PORT"],
    ["reset-admin-password", { SVC_DATABASE_URL: "mysql://db" }, "SVC_DATABASE_URL"],
  ])("svc %s refuses %o with one line and exit code 2", (command, env, variable) => {
    const { code, stderr } = svc([command], env);
    expect(code).toBe(2);
    const lines = stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^svc ${command}: invalid configuration: .*${variable}`));
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it("an unknown argument exits 2 and points at --help", () => {
    const { code, stderr } = svc(["api", "--port=1"]);
    expect(code).toBe(2);
    expect(stderr.trim()).toBe('svc api: unknown argument "--port=1" (svc api --help)');
  });
});
