import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { ApiException, CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { waitFor } from "@svc/kube";
import { afterAll, inject } from "vitest";

/** A cluster-admin KubeConfig for the shared test control plane. */
export function testKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(inject("kubeconfigPath"));
  return kc;
}

/** Creates a namespace unique to the calling test file, deleted after its tests. */
export async function testNamespace(kc: KubeConfig, prefix: string): Promise<string> {
  const name = `${prefix}-${randomBytes(3).toString("hex")}`;
  const core = kc.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name } } });
  afterAll(async () => {
    await core.deleteNamespace({ name });
  });
  return name;
}

/** The HTTP status and message of a failed Kubernetes call (throws if the call succeeded). */
export async function rejection(call: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiException) {
      const body = JSON.parse(String(error.body)) as { message?: string };
      return { code: error.code, message: body.message ?? "" };
    }
    throw error;
  }
  throw new Error("expected the API server to reject the request, but it accepted it");
}

/** Polls `read` until it returns a value for which `done` holds (bounded). */
export function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  return waitFor(read, done, { what, timeoutMs, intervalMs: 200 });
}

/** Whether a process is alive (a zombie awaiting its reaper counts as gone). */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}
