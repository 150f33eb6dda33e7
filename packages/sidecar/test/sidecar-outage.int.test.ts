// The Kubernetes API goes away and comes back: the sidecar keeps answering from memory, then
// catches up. Runs on its own control plane so stopping kube-apiserver disturbs no other test.
import { ensureNamespace, installCrds } from "@svc/kube";
import { startLocalControlPlane, type LocalControlPlane } from "@svc/localkube";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSidecar, type RunningSidecar } from "../src/index.ts";
import { eventually } from "../../../test/support/kube.ts";
import { flagWriter, type FlagWriter } from "./support/flags-api.ts";
import { openStream, poll } from "./support/sse-client.ts";

const namespace = "shop";
let controlPlane: LocalControlPlane;
let flags: FlagWriter;
let sidecar: RunningSidecar;

const value = (name: string) =>
  fetch(`${sidecar.url}/flags/${name}/value`).then(async (r) => `${r.status} ${await r.text()}`);

beforeAll(async () => {
  controlPlane = await startLocalControlPlane();
  const kc = controlPlane.kubeConfig();
  await installCrds(kc);
  await ensureNamespace(kc, namespace);
  flags = flagWriter(kc, namespace);
  await flags.create("steady", "string", "before");
  await flags.create("doomed", "integer", "1");
  sidecar = await runSidecar({
    namespace,
    port: 0,
    host: "127.0.0.1",
    remoteReads: false,
    kubeconfigPath: controlPlane.kubeconfigPath,
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
  await controlPlane.stop();
});

describe("svc sidecar during a Kubernetes API outage", () => {
  it("keeps serving the last known flags, then catches up when the API returns", async () => {
    const stream = await openStream(sidecar.url);
    await eventually(
      poll(() => stream.events.length),
      (n) => n >= 2,
      "the snapshot",
    );

    await controlPlane.stopApiServer();
    await eventually(
      poll(() => sidecar.stats.kubernetesConnected),
      (c) => !c,
      "the sidecar to notice the outage",
    );
    expect(await value("steady")).toBe("200 before");
    expect((await fetch(`${sidecar.url}/healthz`)).status).toBe(200);
    const listed = (await (await fetch(`${sidecar.url}/flags`)).json()) as { name: string }[];
    expect(listed.map((f) => f.name)).toEqual(["doomed", "steady"]);
    const evaluation = await fetch(`${sidecar.url}/ofrep/v1/evaluate/flags/doomed`, {
      method: "POST",
      body: "{}",
    });
    expect(await evaluation.json()).toEqual({
      key: "doomed",
      reason: "STATIC",
      value: 1,
      variant: "default",
      metadata: {},
    });
    expect(stream.ended()).toBe(false);

    await controlPlane.startApiServer();
    await flags.setValue("steady", "after");
    await flags.remove("doomed");
    await flags.create("newcomer", "boolean", "false");
    await eventually(
      () => value("newcomer"),
      (v) => v === "200 false",
      "the sidecar to catch up",
      90_000,
    );
    expect(await value("steady")).toBe("200 after");
    expect((await value("doomed")).startsWith("404")).toBe(true);
    expect(sidecar.stats.kubernetesConnected).toBe(true);

    // The same stream, never reconnected, carries the changes. Whether the sidecar resumed its
    // watch or had to relist (410), each change appears once; a relist reports the difference,
    // deletions first, so the order across flags may differ from the order of the writes.
    await eventually(
      poll(() => stream.events.length),
      (n) => n >= 5,
      "the stream to catch up",
    );
    const byName = (e: { data: unknown }) => (e.data as { name: string }).name;
    expect(
      stream.events
        .slice(2)
        .sort((a, b) => byName(a).localeCompare(byName(b)))
        .map((e) => [e.event, e.data]),
      JSON.stringify(stream.events),
    ).toEqual([
      ["delete", { name: "doomed" }],
      ["update", { name: "newcomer", type: "boolean", value: "false", disabled: false }],
      ["update", { name: "steady", type: "string", value: "after", disabled: false }],
    ]);
    stream.close();
  });
});
