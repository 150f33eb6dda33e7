// Server-sent events of the change stream (SPEC.md "Events", DESIGN.md §6): formatting, event
// ids, and the bounded history that lets a reconnecting client resume without a full snapshot.
import type { FlagChange } from "./flags.ts";

/** Sent every heartbeat interval so proxies and clients see a live connection. */
export const HEARTBEAT = ": heartbeat\n\n";

/** Tells EventSource clients to reconnect after 1 s (its default is browser-specific). */
export const STREAM_PREAMBLE = "retry: 1000\n\n";

/** SPEC.md's events, and OFREP's (protocol ADR-0008: always `message`, the type is in the data). */
export type StreamEventName = "update" | "delete" | "message";

/** One event. `data` is JSON text, which never holds a raw newline, so one data line suffices. */
export function formatEvent(name: StreamEventName, id: string, data: string): string {
  return `id: ${id}\nevent: ${name}\ndata: ${data}\n\n`;
}

/**
 * Event ids are `<boot>.<revision>`: the boot part tells ids of an earlier sidecar process
 * (whose revisions restarted at 0) from this one's.
 */
export function streamId(boot: string, revision: number): string {
  return `${boot}.${revision}`;
}

/** The revision a Last-Event-ID names, when it is a complete id of this process. */
export function parseStreamId(boot: string, id: string | undefined): number | undefined {
  if (id === undefined || !id.startsWith(`${boot}.`)) return undefined;
  const rest = id.slice(boot.length + 1);
  return /^(0|[1-9][0-9]{0,14})$/.test(rest) ? Number(rest) : undefined;
}

/** The event of one change; `flagJson` is the flag's JSON text (the update's data). */
export function changeEvent(boot: string, change: FlagChange, flagJson: string): string {
  const id = streamId(boot, change.revision);
  return change.kind === "update"
    ? formatEvent("update", id, flagJson)
    : formatEvent("delete", id, JSON.stringify({ name: change.name }));
}

/**
 * OFREP's change event: the provider refetches its bulk evaluation. `etag` tags the flag
 * definitions (the bulk ETag depends on each provider's context, so it cannot be sent).
 */
export function refetchEvent(boot: string, revision: number, etag: string): string {
  return formatEvent(
    "message",
    streamId(boot, revision),
    JSON.stringify({ type: "refetchEvaluation", etag }),
  );
}

/**
 * The current state as one `update` event per flag. Only the last event carries the plain id of
 * the state's revision; the others carry `<id>.<n>`, which no resume accepts, so a client cut off
 * in the middle of a snapshot gets a whole one again instead of resuming with flags missing.
 */
export function snapshotEvents(boot: string, revision: number, flagJsons: readonly string[]): string {
  const id = streamId(boot, revision);
  const last = flagJsons.length - 1;
  return flagJsons.map((json, n) => formatEvent("update", n === last ? id : `${id}.${n}`, json)).join("");
}

/** The most recent change events, to replay to a client that reconnects with a Last-Event-ID. */
export class EventHistory {
  readonly #maxEvents: number;
  readonly #maxBytes: number;
  #events: { revision: number; text: string }[] = [];
  #bytes = 0;
  #latest: number;

  constructor(options: { maxEvents: number; maxBytes: number; revision: number }) {
    this.#maxEvents = options.maxEvents;
    this.#maxBytes = options.maxBytes;
    this.#latest = options.revision;
  }

  /** Records the event of `revision`, which must follow the previous one. */
  add(revision: number, text: string): void {
    this.#events.push({ revision, text });
    this.#bytes += text.length;
    this.#latest = revision;
    while (
      this.#events.length > this.#maxEvents ||
      (this.#bytes > this.#maxBytes && this.#events.length > 1)
    ) {
      this.#bytes -= this.#events.shift()?.text.length ?? 0;
    }
  }

  /** The events after `revision`, or undefined when some of them are no longer held. */
  since(revision: number): string | undefined {
    if (revision > this.#latest) return undefined;
    if (revision === this.#latest) return "";
    const first = this.#events[0];
    if (first === undefined || first.revision > revision + 1) return undefined;
    return this.#events
      .filter((e) => e.revision > revision)
      .map((e) => e.text)
      .join("");
  }
}
