// A registry that connects only some registered clusters (a sharded operator replica connects
// those whose Lease it holds): it still knows every registered cluster, connects only those its
// `connects` predicate accepts, and follows a changed answer on refresh().
import { readFile } from "node:fs/promises";
import { ClusterRegistry, installCrds, waitFor } from "@svc/kube";
import { afterAll, describe, expect, inject, it } from "vitest";
import { testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import { registerCluster } from "./support/registry.ts";

const hub = testKubeConfig();
let registry: ClusterRegistry | undefined;

afterAll(async () => {
  await registry?.close();
});

describe("ClusterRegistry's connects option", () => {
  it("connects only the clusters it accepts, knows the others, and follows a change on refresh", async () => {
    await installCrds(hub);
    const systemNamespace = await testNamespace(hub, "registry-connects");
    const kubeconfig = await readFile(inject("kubeconfigPath"), "utf8");
    for (const id of ["east", "west"])
      await registerCluster(
        hub,
        systemNamespace,
        id,
        { apiServer: hub.getCurrentCluster()?.server, namespaces: [systemNamespace] },
        { kubeconfig },
      );
    const accepted = new Set(["east"]);
    registry = await ClusterRegistry.start({
      hubKubeConfig: hub,
      systemNamespace,
      localClusterId: "hub",
      connects: (id) => accepted.has(id),
    });
    const started = registry;
    const connected = () => Promise.resolve(started.list().map((cluster) => cluster.id));
    expect(started.registeredIds().sort()).toEqual(["east", "hub", "west"]);
    await waitFor(connected, (ids) => ids.join() === "east", {
      what: "east alone connected",
      timeoutMs: 30_000,
    });
    await started.get("east")?.whenSynced(30_000);

    accepted.delete("east");
    accepted.add("west");
    started.refresh();
    await waitFor(connected, (ids) => ids.join() === "west", {
      what: "west alone connected",
      timeoutMs: 30_000,
    });
    expect(started.get("east")).toBeUndefined();
    expect(started.registeredIds().sort()).toEqual(["east", "hub", "west"]);
  });
});
