// What `svc dev` prints and creates: the banner a user follows, and demo flags the API accepts.
import { validateFlagCreate, type FlagView } from "@svc/core";
import { describe, expect, it } from "vitest";
import { devBanner, type BannerInput } from "../src/dev/banner.ts";
import { demoFlags } from "../src/dev/demo.ts";

function flag(
  name: string,
  delivery: FlagView["delivery"],
  phase: FlagView["status"]["phase"],
  message = "",
): FlagView {
  return {
    name,
    namespace: "demo",
    clusterId: "local",
    type: "boolean",
    defaultValue: "true",
    description: "",
    delivery,
    enabled: true,
    resourceVersion: "1",
    createdAt: "2026-11-22T00:00:00Z",
    updatedAt: "2026-11-22T00:00:00Z",
    status: { phase, targets: [], message },
  };
}

const selector = { matchLabels: { app: "web" } };
const input: BannerInput = {
  dashboardUrl: "http://127.0.0.1:8080",
  apiUrl: "http://127.0.0.1:8090",
  apiMetricsUrl: "http://127.0.0.1:9090",
  sidecarUrl: "http://127.0.0.1:8514",
  demoPods: [],
  operatorMetricsUrl: "http://127.0.0.1:9091",
  adminPassword: "s3cret-from-env",
  kubectlPath: "/bin/kubectl",
  demoNamespace: "demo",
  clusters: [
    {
      id: "local",
      server: "https://127.0.0.1:6443",
      kubeconfigPath: "/run/a/kubeconfig",
      logsDir: "/run/a",
      demoFlags: [
        flag("new-checkout", { envVar: { selector } }, "Delivered"),
        flag("sampling-rate", { sidecar: { selector } }, "Degraded", "1 of 1 workloads failed"),
      ],
    },
    {
      id: "east",
      server: "https://127.0.0.1:7443",
      kubeconfigPath: "/run/b/kubeconfig",
      logsDir: "/run/b",
      demoFlags: [],
    },
  ],
};

describe("devBanner", () => {
  it("prints the password in force, every cluster, and each demo flag's phase with its reason", () => {
    const lines = devBanner(input).split("\n");
    expect(lines).toContain(
      "  dashboard        http://127.0.0.1:8080  (user admin, password s3cret-from-env)",
    );
    expect(lines).toContain(
      "  clusters         local  https://127.0.0.1:6443  (kubeconfig /run/a/kubeconfig)",
    );
    expect(lines).toContain(
      "                   east  https://127.0.0.1:7443  (kubeconfig /run/b/kubeconfig)",
    );
    expect(lines).toContain(
      "  try              /bin/kubectl --kubeconfig /run/a/kubeconfig get featureflags -A",
    );
    expect(lines).toContain("                   local/new-checkout (envVar): Delivered");
    expect(lines).toContain(
      "                   local/sampling-rate (sidecar): Degraded  1 of 1 workloads failed",
    );
    expect(lines).toContain("  logs             /run/a/*.log  (local)");
    expect(lines).toContain("                   /run/b/*.log  (east)");
  });

  it("claims no password it cannot vouch for, and says where logs are on your own cluster", () => {
    const text = devBanner({
      ...input,
      adminPassword: undefined,
      clusters: [{ ...input.clusters[0], logsDir: undefined, demoFlags: [] }],
    });
    expect(text).not.toContain("password s3cret");
    expect(text).toContain("the password kept in the database of an earlier run");
    expect(text).toContain("none (could not log in to create them)");
    expect(text).toContain("logs             here (the control plane is your own cluster)");
  });

  it("without a node, says the demo pods stay Pending and points at the sidecar it runs itself", () => {
    const lines = devBanner(input).split("\n");
    expect(lines).toContain("  demo pods        none running (no local node: they stay Pending)");
    expect(lines).toContain(
      "  sidecar (demo)   http://127.0.0.1:8514/flags  (stream: http://127.0.0.1:8514/flags/stream)",
    );
  });

  it("with a node, lists each demo pod's page and where the sidecar of the log-agent pod answers", () => {
    const lines = devBanner({
      ...input,
      sidecarUrl: undefined,
      demoPods: [
        { name: "log-agent-x7k2p", ready: true, ip: "10.88.0.4" },
        { name: "web-5d9c-abcde", ready: false, ip: undefined },
      ],
      clusters: [{ ...input.clusters[0], nodeLogsDir: "/run/node" }],
    }).split("\n");
    expect(lines).toContain(
      "  sidecar (demo)   in pod log-agent-x7k2p, on 127.0.0.1:8514 for its own containers only; its page http://10.88.0.4:8080 shows what it serves",
    );
    expect(lines).toContain(
      "  demo pods        log-agent-x7k2p         Ready      http://10.88.0.4:8080  (the flags it sees)",
    );
    expect(lines).toContain("                   web-5d9c-abcde          not Ready");
    expect(lines).toContain("                   /run/node/*.log  (local's node)");
  });
});

describe("demoFlags", () => {
  it("holds one valid flag of each delivery kind, for the cluster asked", () => {
    const flags = demoFlags("east");
    for (const body of flags) expect(validateFlagCreate(body)).toMatchObject({ ok: true });
    expect(flags.map((f) => Object.keys(f.delivery)[0]).sort()).toEqual(["configMap", "envVar", "sidecar"]);
    expect(new Set(flags.map((f) => f.clusterId))).toEqual(new Set(["east"]));
  });
});
