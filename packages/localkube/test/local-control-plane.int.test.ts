import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { once } from "node:events";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { AppsV1Api, CoreV1Api, VersionApi, type V1Deployment } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { startLocalControlPlane } from "@svc/localkube";
import { freeLoopbackPort } from "@svc/kube";
import { eventually, isRunning, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";

const kc = testKubeConfig();

function deployment(name: string, image: string): V1Deployment {
  const labels = { app: name };
  return {
    metadata: { name, labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: "app", image }] } },
    },
  };
}

describe("the shared control plane", () => {
  it("serves the Kubernetes pinned in hack/controlplane (≥ 1.33: native sidecars are GA)", async () => {
    const goMod = readFileSync(join(import.meta.dirname, "../../../hack/controlplane/kube/go.mod"), "utf8");
    const pinned = /^\s*k8s\.io\/kubernetes (v\S+)/m.exec(goMod)?.[1];
    const version = await kc.makeApiClient(VersionApi).getCode();
    expect(version.gitVersion).toBe(pinned);
    expect(Number(version.major)).toBe(1);
    expect(Number.parseInt(version.minor, 10)).toBeGreaterThanOrEqual(33);
  });

  it("runs kube-controller-manager: a Deployment gets a ReplicaSet, a new pod template a second one", async () => {
    const namespace = await testNamespace(kc, "kcm");
    const apps = kc.makeApiClient(AppsV1Api);
    await apps.createNamespacedDeployment({ namespace, body: deployment("web", "nginx:1.27") });
    const first = await eventually(
      () => apps.listNamespacedReplicaSet({ namespace }),
      (list) => list.items.length === 1,
      "the first ReplicaSet",
    );
    expect(first.items[0]?.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "Deployment", name: "web" });
    expect(first.items[0]?.spec?.template?.spec?.containers[0]?.image).toBe("nginx:1.27");

    await apps.patchNamespacedDeployment({
      namespace,
      name: "web",
      body: [{ op: "replace", path: "/spec/template/spec/containers/0/image", value: "nginx:1.28" }],
    });
    const second = await eventually(
      () => apps.listNamespacedReplicaSet({ namespace }),
      (list) => list.items.length === 2,
      "a second ReplicaSet after the pod template changed",
    );
    const images = second.items.map((rs) => rs.spec?.template?.spec?.containers[0]?.image).sort();
    expect(images).toEqual(["nginx:1.27", "nginx:1.28"]);
  });

  it("creates the default ServiceAccount of a new namespace (controllers are live)", async () => {
    const namespace = await testNamespace(kc, "sa");
    const core = kc.makeApiClient(CoreV1Api);
    const accounts = await eventually(
      () => core.listNamespacedServiceAccount({ namespace }),
      (list) => list.items.some((sa) => sa.metadata?.name === "default"),
      "the default ServiceAccount",
    );
    expect(accounts.items.map((sa) => sa.metadata?.name)).toContain("default");
  });
});

describe("startLocalControlPlane", () => {
  it("starts an independent second control plane and stops it without leftovers", async () => {
    const second = await startLocalControlPlane();
    try {
      const otherKc = second.kubeConfig();
      expect(otherKc.getCurrentCluster()?.server).not.toBe(kc.getCurrentCluster()?.server);
      const namespace = await testNamespace(kc, "only-in-first");
      const names = (await otherKc.makeApiClient(CoreV1Api).listNamespace()).items.map(
        (n) => n.metadata?.name,
      );
      expect(names).toContain("default");
      expect(names).not.toContain(namespace);
      expect(second.pids.every(isRunning)).toBe(true);

      // kube-apiserver can be stopped and started again alone, keeping its data (etcd runs on).
      await second.stopApiServer();
      await expect(otherKc.makeApiClient(CoreV1Api).listNamespace()).rejects.toThrow();
      await second.startApiServer();
      const again = (await otherKc.makeApiClient(CoreV1Api).listNamespace()).items.map(
        (n) => n.metadata?.name,
      );
      expect(again).toEqual(names);
      expect(second.pids.every(isRunning)).toBe(true);
    } finally {
      await second.stop();
    }
    expect(second.pids.filter(isRunning)).toEqual([]);
    expect(existsSync(second.dir)).toBe(false);
  });

  it("runs its own components when another process takes a port chosen for one before it binds it", async () => {
    // The race of a port free a moment ago: the shared kube-apiserver (which answers /healthz to
    // anyone) holds the port given to kube-controller-manager. Its probe must not take that
    // server's answer for its own, and it must run on another port.
    const taken = Number(new URL(kc.getCurrentCluster()?.server ?? "").port);
    let chosen = 0;
    const racing = await startLocalControlPlane({
      choosePort: async () => (++chosen === 4 ? taken : freeLoopbackPort()),
    });
    try {
      // Its own kube-controller-manager runs: a new namespace gets its default ServiceAccount.
      const core = racing.kubeConfig().makeApiClient(CoreV1Api);
      await core.createNamespace({ body: { metadata: { name: "raced" } } });
      await eventually(
        () => core.listNamespacedServiceAccount({ namespace: "raced" }),
        (list) => list.items.some((sa) => sa.metadata?.name === "default"),
        "the default ServiceAccount, made by its own kube-controller-manager",
      );
      expect(racing.pids).toHaveLength(3);
      expect(racing.pids.every(isRunning)).toBe(true);
    } finally {
      await racing.stop();
    }
  });

  it.each(["throw", "signal"])(
    "leaves no process behind when the process that started it dies (%s)",
    async (mode) => {
      const child = spawn(
        process.execPath,
        [join(import.meta.dirname, "../../../test/fixtures/start-then-die.ts"), mode],
        {
          stdio: ["pipe", "pipe", "pipe"],
        },
      );
      const lines = createInterface({ input: child.stdout });
      const [line] = (await once(lines, "line")) as [string];
      const { pids, dir } = JSON.parse(line) as { pids: number[]; dir: string };
      expect(pids).toHaveLength(3);
      expect(pids.every(isRunning)).toBe(true);
      child.stdin.write("die\n");
      if (mode === "signal") child.kill("SIGTERM");
      await once(child, "exit");
      await eventually(
        () => Promise.resolve(pids.filter(isRunning)),
        (running) => running.length === 0,
        "the control plane processes to end",
        15_000,
      );
      expect(existsSync(dir)).toBe(false);
    },
  );
});
