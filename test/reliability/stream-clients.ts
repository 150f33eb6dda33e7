// The clients of the sidecar stream load test (sidecar-streams.test.ts): subscribers that read
// at once, slowly or never, a prober of /healthz and /flags, and a sampler of a process's memory.
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { memory } from "../../bench/support/process-stats.ts";
import {
  openStream,
  type StreamEvent,
  type StreamRecording,
} from "../../packages/sidecar/test/support/sse-client.ts";

/** When each value arrived at the first and the last of `expected` subscribers. */
export function fanoutClock(expected: number) {
  const receipts = new Map<string, { first: number; last: number; count: number }>();
  const waiters = new Map<string, () => void>();
  return {
    onEvent: (event: StreamEvent) => {
      const value = (event.data as { value?: string }).value ?? "";
      const now = performance.now();
      const receipt = receipts.get(value) ?? { first: now, last: now, count: 0 };
      receipt.last = now;
      receipt.count++;
      receipts.set(value, receipt);
      if (receipt.count === expected) waiters.get(value)?.();
    },
    /** Resolves once every subscriber has `value` (bounded: a hang fails the test). */
    everyoneHas: (value: string) =>
      new Promise<{ first: number; last: number }>((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(new Error(`${value} not delivered to all in 60 s`));
        }, 60_000);
        const done = () => {
          clearTimeout(timer);
          const receipt = receipts.get(value);
          if (receipt) resolve(receipt);
        };
        if (receipts.get(value)?.count === expected) done();
        else waiters.set(value, done);
      }),
  };
}

/** Opens `count` streams, 100 at a time (the listen backlog is 511). */
export async function openStreams(url: string, count: number, onEvent: (e: StreamEvent) => void) {
  const streams: StreamRecording[] = [];
  for (let i = 0; i < count; i += 100) {
    streams.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(100, count - i) }, () => openStream(url, {}, onEvent)),
      )),
    );
  }
  return streams;
}

/** Reads one chunk every 100 ms; when cut off, resumes with the last event id it saw. */
export function slowSubscriber(url: string) {
  const state = new Map<string, string>();
  let lastId: string | undefined;
  let resumes = 0;
  let current: StreamRecording | undefined;
  let closing = false;
  const open = async (): Promise<void> => {
    const recording = await openStream(url, lastId === undefined ? {} : { "Last-Event-ID": lastId }, (e) => {
      lastId = e.id ?? lastId;
      const flag = e.data as { name: string; value: string };
      if (e.event === "delete") state.delete(flag.name);
      else state.set(flag.name, flag.value);
    });
    current = recording;
    recording.response.on("data", () => {
      recording.response.pause();
      setTimeout(() => recording.response.resume(), 100);
    });
    recording.response.once("close", () => {
      if (closing || resumes >= 50) return;
      resumes++;
      void sleep(100).then(open);
    });
  };
  return {
    open,
    state,
    resumes: () => resumes,
    close: () => {
      closing = true;
      current?.close();
    },
  };
}

/** A subscriber that sends its request and never reads: its TCP buffers fill, then the sidecar's. */
export async function neverReader(port: number): Promise<Socket> {
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => undefined);
  await once(socket, "connect");
  socket.write("GET /flags/stream HTTP/1.1\r\nHost: x\r\n\r\n");
  socket.pause();
  return socket;
}

/** The sidecar's end of a loopback connection is still open (TCP state ESTABLISHED). */
export function serverEndEstablished(serverPort: number, clientPort: number): boolean {
  const hex = (port: number) => port.toString(16).toUpperCase().padStart(4, "0");
  const local = `0100007F:${hex(serverPort)}`;
  const remote = `0100007F:${hex(clientPort)}`;
  return readFileSync("/proc/net/tcp", "utf8")
    .split("\n")
    .some((line) => {
      const [, l, r, state] = line.trim().split(/\s+/);
      return l === local && r === remote && state === "01";
    });
}

/** /healthz and /flags asked every 100 ms until stopped: answers other than 200 are failures. */
export function prober(url: string, minFlags: number) {
  const run = { going: true };
  let probes = 0;
  const failures: string[] = [];
  const loop = (async () => {
    while (run.going) {
      for (const path of ["/healthz", "/flags"]) {
        try {
          const reply = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(10_000) });
          const text = await reply.text();
          if (reply.status !== 200) failures.push(`${path}: ${reply.status}`);
          else if (path === "/flags" && (JSON.parse(text) as unknown[]).length < minFlags)
            failures.push(`/flags: ${text.slice(0, 100)}`);
          probes++;
        } catch (error) {
          failures.push(`${path}: ${String(error)}`);
        }
      }
      await sleep(100);
    }
  })();
  return {
    stop: async () => {
      run.going = false;
      await loop;
      return { probes, failures };
    },
  };
}

/** The largest memory figures of `pid`, sampled every 100 ms until stopped. */
export function peakMemory(pid: number) {
  const peak = memory(pid);
  const timer = setInterval(() => {
    const now = memory(pid);
    peak.vmRssMb = Math.max(peak.vmRssMb, now.vmRssMb);
    peak.rssAnonMb = Math.max(peak.rssAnonMb, now.rssAnonMb);
  }, 100);
  return () => {
    clearInterval(timer);
    return peak;
  };
}
