// close() must leave nothing running: proven by a process that closes a registry and must then
// end by itself (an open watch, socket, timer or back-off would keep it alive).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { installCrds } from "@svc/kube";
import { eventually, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import { registerCluster } from "./support/registry.ts";

const hub = testKubeConfig();

describe("ClusterRegistry.close", () => {
  it("leaves no watch, timer or socket behind: the process that closed it ends by itself", async () => {
    await installCrds(hub);
    const systemNamespace = await testNamespace(hub, "registry-close");
    // A cluster that cannot be reached keeps a back-off pending: close() must end it too.
    const kubeconfig = await readFile(inject("kubeconfigPath"), "utf8");
    await registerCluster(
      hub,
      systemNamespace,
      "nowhere",
      { apiServer: "https://127.0.0.1:1" },
      { kubeconfig },
    );
    const child = spawn(
      process.execPath,
      [
        join(import.meta.dirname, "fixtures/registry-start-close.ts"),
        inject("kubeconfigPath"),
        systemNamespace,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    let exitCode: number | null | undefined;
    void once(child, "exit").then(([code]) => (exitCode = code as number | null));
    try {
      await eventually(
        () => Promise.resolve(exitCode),
        (code) => code !== undefined,
        "the process to end by itself after close()",
        45_000,
      );
      expect(output).toBe("closed\n");
      expect(exitCode).toBe(0);
    } finally {
      child.kill("SIGKILL");
    }
  });
});
