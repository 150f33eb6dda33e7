// The Helm chart deploy/helm/svc, with the pinned helm (hack/helm) against the real control
// plane: it lints and renders in both profiles, the real kube-apiserver accepts every manifest
// (dry-run and for real), and the production password survives upgrades.
import { spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { AppsV1Api } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { adminPassword as passwordIn, CHART, helmSession } from "../support/helm.ts";
import { testKubeConfig, testNamespace } from "../support/kube.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const kc = testKubeConfig();
const { helm, kubectl, install } = helmSession();
const adminPassword = (namespace: string) => passwordIn(kc, namespace);

describe("the chart", () => {
  it("lints in both profiles, and its schema refuses a bad value by name", () => {
    for (const profile of ["production", "development"])
      expect(helm(["lint", CHART, "--set", `profile=${profile}`])).toMatch(
        /1 chart\(s\) linted, 0 chart\(s\) failed/,
      );
    const refusal = (value: string) => {
      try {
        helm(["template", "x", CHART, "--set", value]);
      } catch (error) {
        return String((error as { stderr?: string }).stderr);
      }
      return "rendered";
    };
    expect(refusal("profile=staging")).toContain(
      "at '/profile': value must be one of 'production', 'development'",
    );
    expect(refusal("operator.replicaz=2")).toContain(
      "at '/operator': additional properties 'replicaz' not allowed",
    );
  });

  it("stores the development profile's documented password, or the one auth.adminPassword sets", () => {
    const secretOf = (...values: string[]) =>
      helm([
        "template",
        "x",
        CHART,
        "--show-only",
        "templates/admin-secret.yaml",
        ...values.flatMap((v) => ["--set", v]),
      ]);
    const b64 = (text: string) => Buffer.from(text).toString("base64");
    expect(secretOf("profile=development")).toContain(`password: "${b64("admin-dev-password")}"`);
    for (const profile of ["production", "development"])
      expect(secretOf(`profile=${profile}`, "auth.adminPassword=Chosen-Pass-1")).toContain(
        `password: "${b64("Chosen-Pass-1")}"`,
      );
  });

  it("runs the operator with Node's heap bounds and V8's growth factor on node's command line, as values say", () => {
    const command = (...values: string[]) => {
      const rendered = helm([
        "template",
        "x",
        CHART,
        "--show-only",
        "templates/operator.yaml",
        ...values.flatMap((v) => ["--set", v]),
      ]);
      const block = /command:\n((?: +- .*\n)+)/.exec(rendered)?.[1] ?? "";
      return block.split("\n").flatMap((line) => /^ +- (.*)$/.exec(line)?.[1] ?? []);
    };
    // docs/operator.md "Sizing": without the semi-space bound V8 grows its young generation to
    // 128 MB of RSS, mostly empty; without a fixed growth factor its old space to up to 4x the
    // live heap.
    const main = "/app/packages/cli/src/main.ts";
    const defaults = ["--max-old-space-size=256", "--max-semi-space-size=4", "--heap-growing-percent=20"];
    expect(command()).toEqual(["node", ...defaults, main]);
    expect(
      command("operator.maxOldSpaceMb=4096", "operator.maxSemiSpaceMb=8", "operator.heapGrowingPercent=0"),
    ).toEqual(["node", "--max-old-space-size=4096", "--max-semi-space-size=8", main]);
    // The image's Node (24, as here) starts with them: NODE_OPTIONS would refuse the last one.
    const started = spawnSync(process.execPath, [...defaults, "-e", "process.stdout.write('started')"], {
      encoding: "utf8",
    });
    expect(started.stderr).toBe("");
    expect(started.stdout).toBe("started");
    const refused = spawnSync(process.execPath, ["-e", "0"], {
      encoding: "utf8",
      env: { ...process.env, NODE_OPTIONS: "--heap-growing-percent=20" },
    });
    expect(refused.stderr).toContain("is not allowed in NODE_OPTIONS");
  });

  it("ships the CRDs of deploy/crds unchanged", async () => {
    for (const file of [
      "featureflags.svc.io.yaml",
      "clusterconnections.svc.io.yaml",
      "flagrollouts.svc.io.yaml",
    ])
      expect(await readFile(join(CHART, "crds", file), "utf8")).toBe(
        await readFile(join(ROOT, "deploy/crds", file), "utf8"),
      );
  });

  it.each(["production", "development"])(
    "renders the %s profile into manifests the kube-apiserver accepts, dry-run and for real",
    async (profile) => {
      const namespace = await testNamespace(kc, `helm-${profile.slice(0, 4)}`);
      const rendered = helm([
        "template",
        `r-${namespace}`,
        CHART,
        "-n",
        namespace,
        "--include-crds",
        "--set",
        `profile=${profile}`,
        "--set",
        "ingress.enabled=true",
      ]);
      for (const kind of [
        "Deployment",
        "Service",
        "ServiceAccount",
        "ClusterRole",
        "Role",
        "NetworkPolicy",
        "Ingress",
        "Secret",
        "PersistentVolumeClaim",
        "CustomResourceDefinition",
      ])
        expect(rendered, kind).toContain(`kind: ${kind}`);
      // svc's own CRDs are installed already by another manager: the chart takes them over unchanged.
      const apply = ["apply", "--server-side", "--force-conflicts", "--field-manager=helm-test", "-f", "-"];
      kubectl([...apply, "--dry-run=server"], rendered);
      kubectl(apply, rendered);
      const deployments = await kc.makeApiClient(AppsV1Api).listNamespacedDeployment({ namespace });
      expect(deployments.items.map((d) => d.metadata?.name).sort()).toEqual([
        "svc-api",
        "svc-dashboard",
        "svc-operator",
      ]);
      kubectl(
        ["delete", "--ignore-not-found", "--wait=false", "-f", "-"],
        rendered
          .split("\n---\n")
          .filter((doc) => !doc.includes("kind: CustomResourceDefinition"))
          .join("\n---\n"),
      );
    },
  );

  it("keeps the production profile's generated password across upgrades", async () => {
    const namespace = await testNamespace(kc, "helm-prod");
    install(`p-${namespace}`, namespace, ["profile=production"]);
    const first = await adminPassword(namespace);
    expect(first).toMatch(/^[A-Za-z0-9]{16}$/);
    helm(["upgrade", `p-${namespace}`, CHART, "-n", namespace, "--set", "profile=production"]);
    helm(["upgrade", `p-${namespace}`, CHART, "-n", namespace, "--set", "profile=production"]);
    expect(await adminPassword(namespace)).toBe(first);
    expect(helm(["get", "notes", `p-${namespace}`, "-n", namespace])).toContain(
      "get secret svc-admin -o jsonpath='{.data.password}'",
    );
  });
});
