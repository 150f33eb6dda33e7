// Load on one sidecar's change stream (issue 13): the real `svc sidecar` process (pinned to CPU 0)
// serving a namespace of 100 flags to 2,000 subscribers of /flags/stream, 20 slow ones (a chunk
// read every 100 ms) and 20 that never read, while FeatureFlags change through the Kubernetes API.
//
// Phase 1: 200 changes (half paced, each awaited until every subscriber has it, to time one
// event's fan-out; half back to back). Every subscriber must get every change, in order, with no
// disconnect (the sidecar sends one event per watch event and never coalesces: stream.ts);
// /healthz and /flags keep answering. Phase 2: the normal subscribers gone, 60 KB values are
// written until every never-reading subscriber is cut off (stream.ts: past 8 MiB of unsent
// backlog); the sidecar's memory meanwhile stays under the documented bound, and the slow ones
// end with the final state (after a cut-off and a resume with Last-Event-ID, when it happens).
// The floor: a bare node:http SSE server (sse-floor.ts) holding the same subscribers and writing
// the same bytes. Results: writeReport("sidecar-streams").
//
// Smaller runs while developing: SVC_LOAD_SUBSCRIBERS (default 2000), SVC_LOAD_CHANGES (200).
import type { Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { installCrds } from "@svc/kube";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { memory } from "../../bench/support/process-stats.ts";
import { formatEvent, STREAM_PREAMBLE, type StreamEventName } from "../../packages/sidecar/src/sse.ts";
import { flagWriter, type FlagWriter } from "../../packages/sidecar/test/support/flags-api.ts";
import {
  startSidecarProcess,
  type SidecarProcess,
} from "../../packages/sidecar/test/support/sidecar-process.ts";
import type { StreamEvent, StreamRecording } from "../../packages/sidecar/test/support/sse-client.ts";
import { eventually, testKubeConfig, testNamespace } from "../support/kube.ts";
import { writeReport } from "./report.ts";
import { startBareSseServer } from "./sse-floor.ts";
import {
  fanoutClock,
  neverReader,
  openStreams,
  peakMemory,
  prober,
  serverEndEstablished,
  slowSubscriber,
} from "./stream-clients.ts";

const SUBSCRIBERS = Number(process.env["SVC_LOAD_SUBSCRIBERS"] ?? 2000);
const CHANGES = Number(process.env["SVC_LOAD_CHANGES"] ?? 200);
const SLOW = 20;
const NEVER_READING = 20;
const FLAGS = 100;
/** The sidecar's default bound on a subscriber's unsent bytes (stream.ts). */
const MAX_BACKLOG_BYTES = 8 * 1024 * 1024;
const BIG_VALUE_BYTES = 60_000;
const MAX_BIG_WRITES = 600;
/**
 * The documented memory bounds (docs/reliability.md): each open stream may cost the sidecar at
 * most PER_STREAM_KIB of anonymous memory, a stalled one at most its backlog bound and one
 * event more, on top of HEADROOM_MIB for the garbage collector's slack.
 */
const PER_STREAM_KIB = 64;
const HEADROOM_MIB = 64;

const kc = testKubeConfig();
let namespace = "";
let flags: FlagWriter;
let sidecar: SidecarProcess;
const flagName = (i: number) => `flag-${String(i).padStart(3, "0")}`;
const mib = (bytes: number) => bytes / 1024 / 1024;

beforeAll(async () => {
  await installCrds(kc);
  namespace = await testNamespace(kc, "sidecar-streams");
  flags = flagWriter(kc, namespace);
  for (let i = 0; i < FLAGS; i += 10) {
    await Promise.all(
      Array.from({ length: 10 }, (_, k) => flags.create(flagName(i + k), "string", `initial-${i + k}`)),
    );
  }
  sidecar = await startSidecarProcess({ namespace, kubeconfigPath: inject("kubeconfigPath"), cpus: "0" });
  // prom-client loads on the first scrape: loaded before the first memory figure, so that the
  // figures compare like with like.
  await scrape(sidecar.url);
});

afterAll(async () => {
  await sidecar.stop();
});

/** The unlabelled samples of a /metrics answer. */
async function scrape(url: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return new Map(
    text
      .split("\n")
      .map((line) => /^([a-z_]+) ([0-9.e+-]+)$/.exec(line))
      .flatMap((m) => (m === null ? [] : [[m[1] ?? "", Number(m[2])] as const])),
  );
}
const gauge = async (name: string) => (await scrape(sidecar.url)).get(name) ?? NaN;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const flagLine = (e: StreamEvent) => {
  const flag = e.data as { name: string; value: string };
  return `${flag.name}=${flag.value}`;
};
const revision = (e: StreamEvent) => Number(e.id?.split(".")[1]);
type Memory = ReturnType<typeof memory>;
const fmt = (m: Memory) => `${m.vmRssMb.toFixed(1)} / ${m.rssAnonMb.toFixed(1)} MB`;

interface FanoutRun {
  connectMs: number;
  idle: Memory;
  connected: Memory;
  afterChanges: Memory;
  spreadMs: number[];
  writeToAllMs: number[];
  streams: StreamRecording[];
}

/**
 * Opens the subscribers on `url`, then sends the changes through `change` (the first half paced:
 * each awaited until every subscriber has it), and waits until every subscriber has them all.
 */
async function fanout(
  url: string,
  pid: number,
  values: readonly string[],
  change: (index: number) => Promise<void>,
  connected: () => Promise<void> = () => Promise.resolve(),
): Promise<FanoutRun> {
  const idle = memory(pid);
  const clock = fanoutClock(SUBSCRIBERS);
  const started = performance.now();
  const streams = await openStreams(url, SUBSCRIBERS, clock.onEvent);
  await connected();
  await eventually(
    () => Promise.resolve(streams.filter((s) => s.events.length >= FLAGS).length),
    (n) => n === SUBSCRIBERS,
    "every subscriber's snapshot",
    120_000,
  );
  const connectMs = performance.now() - started;
  const connectedMemory = memory(pid);
  const spreadMs: number[] = [];
  const writeToAllMs: number[] = [];
  for (let i = 0; i < values.length; i++) {
    const start = performance.now();
    await change(i);
    if (i < values.length / 2) {
      const receipt = await clock.everyoneHas(values[i] ?? "");
      spreadMs.push(receipt.last - receipt.first);
      writeToAllMs.push(receipt.last - start);
    }
  }
  await Promise.all(values.slice(values.length / 2).map((value) => clock.everyoneHas(value)));
  return {
    connectMs,
    idle,
    connected: connectedMemory,
    afterChanges: memory(pid),
    spreadMs,
    writeToAllMs,
    streams,
  };
}

it("streams every change to 2,000 subscribers, cuts off the ones that never read, bounded", async () => {
  const writes = Array.from({ length: CHANGES }, (_, i) => ({ name: flagName(i % FLAGS), value: `c-${i}` }));
  const probes = prober(sidecar.url, FLAGS);
  const slow = Array.from({ length: SLOW }, () => slowSubscriber(sidecar.url));
  const stalled: Socket[] = [];

  // Phase 1: every change to every subscriber.
  const run = await fanout(
    sidecar.url,
    sidecar.pid,
    writes.map((w) => w.value),
    (i) => flags.setValue(writes[i]?.name ?? "", writes[i]?.value ?? ""),
    async () => {
      await Promise.all(slow.map((s) => s.open()));
      for (let i = 0; i < NEVER_READING; i++) stalled.push(await neverReader(sidecar.port));
      await eventually(
        () => gauge("svc_sidecar_stream_subscribers"),
        (n) => n === SUBSCRIBERS + SLOW + NEVER_READING,
        "every subscriber connected",
      );
    },
  );
  const expected = writes.map((w) => `${w.name}=${w.value}`);
  const broken = run.streams.filter((s) => {
    const changes = s.events.slice(FLAGS);
    const ordered = changes.every((e, n) => n === 0 || revision(e) > revision(changes[n - 1] ?? e));
    return s.ended() || !ordered || changes.map(flagLine).join("\n") !== expected.join("\n");
  });
  expect(broken.length, "subscribers that missed, reordered or lost a change, or were cut").toBe(0);
  for (const s of run.streams) s.close();
  await eventually(
    () => gauge("svc_sidecar_stream_subscribers"),
    (n) => n === SLOW + NEVER_READING,
    "the normal subscribers gone",
  );
  await sleep(2000);
  const afterDisconnect = memory(sidecar.pid);

  // Phase 2: 60 KB values until every never-reading subscriber is cut off.
  const droppedBefore = await gauge("svc_sidecar_stream_slow_dropped_total");
  const beforeBacklog = memory(sidecar.pid);
  const stopPeak = peakMemory(sidecar.pid);
  const big = "x".repeat(BIG_VALUE_BYTES);
  await flags.create("big", "string", "0");
  let bigWrites = 0;
  const stillOpen = () => stalled.filter((s) => serverEndEstablished(sidecar.port, s.localPort ?? 0));
  while (stillOpen().length > 0 && bigWrites < MAX_BIG_WRITES) {
    bigWrites++;
    await flags.setValue("big", `${bigWrites}${big}`);
  }
  await sleep(1000);
  const backlogPeak = stopPeak();
  expect(stillOpen().length, "never-reading subscribers still connected").toBe(0);
  const dropped = (await gauge("svc_sidecar_stream_slow_dropped_total")) - droppedBefore;
  expect(dropped).toBeGreaterThanOrEqual(NEVER_READING);
  const backlogBoundMb =
    beforeBacklog.rssAnonMb +
    mib((SLOW + NEVER_READING) * (MAX_BACKLOG_BYTES + 2 * BIG_VALUE_BYTES)) +
    HEADROOM_MIB;
  expect(backlogPeak.rssAnonMb).toBeLessThanOrEqual(backlogBoundMb);

  const finalState = new Map(writes.map((w) => [w.name, w.value]));
  finalState.set("big", `${bigWrites}${big}`);
  await eventually(
    () =>
      Promise.resolve(
        slow.filter(
          (s) => s.state.size === FLAGS + 1 && [...finalState].every(([n, v]) => s.state.get(n) === v),
        ).length,
      ),
    (n) => n === SLOW,
    "every slow subscriber at the final state",
    240_000,
  );
  const probed = await probes.stop();
  expect(probed.failures).toEqual([]);
  expect(probed.probes).toBeGreaterThan(10);
  for (const s of slow) s.close();
  for (const s of stalled) s.destroy();
  await eventually(
    () => gauge("svc_sidecar_stream_subscribers"),
    (n) => n === 0,
    "every subscriber gone",
  );
  await sleep(2000);
  const end = memory(sidecar.pid);

  const connectedBoundMb =
    run.idle.rssAnonMb + mib((SUBSCRIBERS + SLOW + NEVER_READING) * PER_STREAM_KIB * 1024) + HEADROOM_MIB;
  expect(run.connected.rssAnonMb).toBeLessThanOrEqual(connectedBoundMb);
  expect(run.afterChanges.rssAnonMb).toBeLessThanOrEqual(connectedBoundMb);
  expect(afterDisconnect.rssAnonMb).toBeLessThanOrEqual(connectedBoundMb);
  expect(end.rssAnonMb).toBeLessThanOrEqual(Math.max(connectedBoundMb, backlogBoundMb));

  // The floor: the same subscribers, the same bytes, on bare node:http.
  const first = run.streams[0];
  const render = (e: StreamEvent) =>
    formatEvent(e.event as StreamEventName, e.id ?? "", JSON.stringify(e.data));
  const snapshot = STREAM_PREAMBLE + (first?.events.slice(0, FLAGS).map(render).join("") ?? "");
  const changeEvents = first?.events.slice(FLAGS).map(render) ?? [];
  const bare = await startBareSseServer("0");
  let floor: FanoutRun;
  try {
    await bare.setSnapshot(snapshot);
    floor = await fanout(
      bare.url,
      bare.pid,
      writes.map((w) => w.value),
      (i) => bare.publish(changeEvents[i] ?? ""),
    );
    for (const s of floor.streams) s.close();
  } finally {
    await bare.stop();
  }
  const perStream = (r: FanoutRun) => ((r.connected.rssAnonMb - r.idle.rssAnonMb) * 1024) / SUBSCRIBERS;
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  writeReport(
    "sidecar-streams",
    [
      `### Sidecar change stream: ${SUBSCRIBERS} subscribers + ${SLOW} slow + ${NEVER_READING} never reading, ${CHANGES} changes`,
      "",
      "| | svc sidecar | bare node:http SSE (floor) | ratio |",
      "| --- | ---: | ---: | ---: |",
      `| time to open ${SUBSCRIBERS} streams and deliver the ${FLAGS}-flag snapshot | ${ms(run.connectMs)} | ${ms(floor.connectMs)} | ${ratio(run.connectMs, floor.connectMs)} |`,
      `| memory idle (VmRSS / anon) | ${fmt(run.idle)} | ${fmt(floor.idle)} | ${ratio(run.idle.rssAnonMb, floor.idle.rssAnonMb)} |`,
      `| memory with the subscribers | ${fmt(run.connected)} | ${fmt(floor.connected)} | ${ratio(run.connected.rssAnonMb, floor.connected.rssAnonMb)} |`,
      `| anon memory per stream | ${perStream(run).toFixed(1)} KiB | ${perStream(floor).toFixed(1)} KiB | ${ratio(perStream(run), perStream(floor))} |`,
      `| memory after the changes | ${fmt(run.afterChanges)} | ${fmt(floor.afterChanges)} | ${ratio(run.afterChanges.rssAnonMb, floor.afterChanges.rssAnonMb)} |`,
      `| one event to all ${SUBSCRIBERS}: first → last subscriber, median (max) | ${ms(median(run.spreadMs))} (${ms(Math.max(...run.spreadMs))}) | ${ms(median(floor.spreadMs))} (${ms(Math.max(...floor.spreadMs))}) | ${ratio(median(run.spreadMs), median(floor.spreadMs))} |`,
      `| write (FeatureFlag patch; floor: POST) → last subscriber, median | ${ms(median(run.writeToAllMs))} | ${ms(median(floor.writeToAllMs))} | ${ratio(median(run.writeToAllMs), median(floor.writeToAllMs))} |`,
      "",
      "| sidecar, through the run | result |",
      "| --- | ---: |",
      `| subscribers that missed, reordered or lost a change, or were cut | ${broken.length} of ${SUBSCRIBERS} |`,
      `| /healthz and /flags probes during the run, failed | ${probed.probes}, ${probed.failures.length} |`,
      `| memory after the subscribers left | ${fmt(afterDisconnect)} |`,
      `| bound with subscribers: idle anon + ${PER_STREAM_KIB} KiB per stream + ${HEADROOM_MIB} MiB | ${connectedBoundMb.toFixed(1)} MB |`,
      `| ${BIG_VALUE_BYTES / 1000} KB writes until the never-reading were cut off | ${bigWrites} |`,
      `| subscribers cut off (never-reading ${NEVER_READING}, slow ones resumed ${slow.reduce((n, s) => n + s.resumes(), 0)}) | ${dropped} |`,
      `| peak memory while cut off (bound: before + ${SLOW + NEVER_READING} × (8 MiB + 2 events) + ${HEADROOM_MIB} MiB) | ${fmt(backlogPeak)} (≤ ${backlogBoundMb.toFixed(1)} MB) |`,
      `| slow subscribers at the final state | ${SLOW} of ${SLOW} |`,
      `| memory after every subscriber left | ${fmt(end)} |`,
    ].join("\n"),
  );
});
