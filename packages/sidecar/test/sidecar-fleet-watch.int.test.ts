// What a sidecar asks of kube-apiserver, seen through a recording proxy in front of the real one
// (issue 22: thousands of sidecars per cluster). Its lists are answered from the watch cache
// (resourceVersion=0, then NotOlderThan what it serves: never a read through to etcd), a dropped
// watch resumes from the last resourceVersion without listing, and across both the sidecar keeps
// serving the latest flags.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installCrds } from "@svc/kube";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runSidecar, type RunningSidecar } from "../src/index.ts";
import { loadKubeconfig } from "../src/kube-connection.ts";
import { eventually, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import { flagWriter, type FlagWriter } from "./support/flags-api.ts";
import { proxyKubeconfig, startRecordingProxy, type RecordingProxy } from "./support/recording-proxy.ts";
import { poll } from "./support/sse-client.ts";

const kc = testKubeConfig();
let dir: string;
let flags: FlagWriter;
let proxy: RecordingProxy;
let sidecar: RunningSidecar;

const value = (name: string) =>
  fetch(`${sidecar.url}/flags/${name}/value`).then(async (r) => `${r.status} ${await r.text()}`);

/** Cuts the sidecar's watch once it is open (bounded wait). */
const dropTheWatch = () =>
  eventually(
    poll(() => proxy.dropWatches()),
    (dropped) => dropped === 1,
    "the sidecar's watch to drop",
  );

beforeAll(async () => {
  await installCrds(kc);
  const namespace = await testNamespace(kc, "sidecar-fleet");
  flags = flagWriter(kc, namespace);
  await flags.create("rollout", "string", "v1");
  proxy = await startRecordingProxy(await loadKubeconfig(inject("kubeconfigPath")));
  dir = await mkdtemp(join(tmpdir(), "svc-sidecar-fleet-"));
  const kubeconfigPath = join(dir, "kubeconfig");
  await writeFile(kubeconfigPath, proxyKubeconfig(proxy.url));
  sidecar = await runSidecar({
    namespace,
    port: 0,
    host: "127.0.0.1",
    remoteReads: false,
    kubeconfigPath,
    heartbeatMs: 1000,
    logLevel: "silent",
    log: pino({ level: "silent" }),
    // Short retries keep the test quick; the schedule itself is unit-tested.
    backoff: { initialMs: 100, maxMs: 1000, factor: 2 },
  });
  await sidecar.ready;
});

afterAll(async () => {
  await sidecar.close();
  await proxy.close();
  await rm(dir, { recursive: true, force: true });
});

describe("svc sidecar's requests to kube-apiserver", () => {
  it("lists from the watch cache, then resumes a dropped watch from its last resourceVersion without listing", async () => {
    expect(await value("rollout")).toBe("200 v1");
    const [first] = proxy.lists();
    expect(first?.query.get("resourceVersion")).toBe("0");
    await dropTheWatch();
    await flags.setValue("rollout", "v2");
    await eventually(
      () => value("rollout"),
      (v) => v === "200 v2",
      "the sidecar to serve the change made after the drop",
    );
    expect(proxy.lists()).toHaveLength(1);
    const watches = proxy.watches();
    expect(watches.length).toBeGreaterThanOrEqual(2);
    for (const watch of watches) {
      expect(watch.query.get("allowWatchBookmarks")).toBe("true");
      expect(Number(watch.query.get("resourceVersion"))).toBeGreaterThan(0);
    }
  });

  it("after its watch expires (410 Gone), lists again from the watch cache, no older than what it serves", async () => {
    const listsBefore = proxy.lists().length;
    proxy.expireNextWatch();
    await dropTheWatch();
    await flags.setValue("rollout", "v3");
    await eventually(
      () => value("rollout"),
      (v) => v === "200 v3",
      "the sidecar to serve the change made around the expiry",
    );
    await eventually(
      poll(() => proxy.lists().length),
      (n) => n > listsBefore,
      "the relist after the 410",
    );
    const expired = proxy.watches().find((w) => w.forwardedResourceVersion === "1");
    const relist = proxy.lists()[listsBefore];
    expect(expired).toBeDefined();
    expect(Object.fromEntries(relist?.query ?? [])).toEqual({
      resourceVersion: expired?.query.get("resourceVersion"),
      resourceVersionMatch: "NotOlderThan",
    });
    // No list of the sidecar's is a consistent read (which goes through to etcd on API servers
    // before 1.31, and costs an etcd round trip after).
    expect(proxy.lists().every((list) => list.query.has("resourceVersion"))).toBe(true);
    expect(await value("rollout")).toBe("200 v3");
  });
});
