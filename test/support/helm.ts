// The pinned helm (hack/helm) and kubectl against the shared control plane, for the chart's
// tests: each file gets its own helm home and uninstalls its releases when it ends.
import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CoreV1Api, type KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, inject } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
export const CHART = join(ROOT, "deploy/helm/svc");
const HELM = join(process.env["SVC_HELM_BIN"] ?? join(ROOT, ".cache/helm/bin"), "helm");
const KUBECTL = join(process.env["SVC_CONTROLPLANE_BIN"] ?? join(ROOT, ".cache/controlplane/bin"), "kubectl");

export interface HelmSession {
  /** A scratch directory of the file, removed after it. */
  work: () => string;
  helm: (args: string[], input?: string) => string;
  kubectl: (args: string[], input: string) => string;
  /** `helm install` into the namespace, uninstalled after the file. */
  install: (name: string, namespace: string, values: string[]) => void;
}

/** Registers the file's setup and teardown; call at the top level of a test file. */
export function helmSession(): HelmSession {
  const kubeconfigPath = inject("kubeconfigPath");
  const releases: { name: string; namespace: string }[] = [];
  let work = "";
  const helm = (args: string[], input?: string) =>
    execFileSync(HELM, args, {
      encoding: "utf8",
      input,
      env: {
        ...process.env,
        KUBECONFIG: kubeconfigPath,
        HELM_CACHE_HOME: join(work, "cache"),
        HELM_CONFIG_HOME: join(work, "config"),
        HELM_DATA_HOME: join(work, "data"),
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "svc-helm-"));
  });
  afterAll(async () => {
    for (const { name, namespace } of releases) helm(["uninstall", name, "-n", namespace]);
    await rm(work, { recursive: true, force: true });
  });
  return {
    work: () => work,
    helm,
    kubectl: (args, input) =>
      execFileSync(KUBECTL, ["--kubeconfig", kubeconfigPath, ...args], { encoding: "utf8", input }),
    install: (name, namespace, values) => {
      helm(["install", name, CHART, "-n", namespace, ...values.flatMap((v) => ["--set", v])]);
      releases.push({ name, namespace });
    },
  };
}

/** The password in the chart's Secret svc-admin. */
export async function adminPassword(kc: KubeConfig, namespace: string): Promise<string> {
  const secret = await kc.makeApiClient(CoreV1Api).readNamespacedSecret({ namespace, name: "svc-admin" });
  return Buffer.from(secret.data?.["password"] ?? "", "base64").toString("utf8");
}
