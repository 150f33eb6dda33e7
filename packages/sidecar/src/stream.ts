// GET /flags/stream (SPEC.md's events) and GET /ofrep/v1/events (OFREP's refetchEvaluation,
// protocol ADR-0008): fans each change out to every subscriber as it is applied. Writes never
// wait for a subscriber; one that stops reading is cut off once its unsent backlog passes a
// bound, and resumes from its Last-Event-ID when it reconnects, so it cannot slow the others
// or grow the sidecar's memory.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { FlagChange, FlagState } from "./flags.ts";
import {
  changeEvent,
  EventHistory,
  HEARTBEAT,
  parseStreamId,
  refetchEvent,
  snapshotEvents,
  STREAM_PREAMBLE,
} from "./sse.ts";
import type { SidecarStats } from "./stats.ts";

export interface ChangeStreamOptions {
  state: FlagState;
  stats: SidecarStats;
  /** Distinguishes this process's event ids from those of an earlier one. */
  boot: string;
  heartbeatMs: number;
  /** Unsent bytes a subscriber may accumulate before it is disconnected. */
  maxBacklogBytes?: number;
}

const STREAM_HEADERS = [
  "Content-Type",
  "text/event-stream; charset=utf-8",
  "Cache-Control",
  "no-cache",
  // Tells nginx-like proxies not to buffer the stream.
  "X-Accel-Buffering",
  "no",
];

export class ChangeStream {
  readonly #options: ChangeStreamOptions;
  readonly #subscribers = new Set<ServerResponse>();
  readonly #ofrepSubscribers = new Set<ServerResponse>();
  readonly #history: EventHistory;
  readonly #maxBacklog: number;
  readonly #heartbeat: NodeJS.Timeout;

  constructor(options: ChangeStreamOptions) {
    this.#options = options;
    this.#maxBacklog = options.maxBacklogBytes ?? 8 * 1024 * 1024;
    this.#history = new EventHistory({
      maxEvents: 1024,
      maxBytes: 4 * 1024 * 1024,
      revision: options.state.revision,
    });
    this.#heartbeat = setInterval(() => {
      this.#broadcast(this.#subscribers, HEARTBEAT);
      this.#broadcast(this.#ofrepSubscribers, HEARTBEAT);
    }, options.heartbeatMs);
    this.#heartbeat.unref();
  }

  get subscribers(): number {
    return this.#subscribers.size + this.#ofrepSubscribers.size;
  }

  /** Starts a stream: the missed changes when Last-Event-ID allows it, else the whole state. */
  subscribe(request: IncomingMessage, response: ServerResponse): void {
    const { state, boot } = this.#options;
    const resumeFrom = parseStreamId(boot, lastEventId(request));
    const missed = resumeFrom === undefined ? undefined : this.#history.since(resumeFrom);
    response.writeHead(200, STREAM_HEADERS);
    response.write(
      STREAM_PREAMBLE +
        (missed ??
          snapshotEvents(
            boot,
            state.revision,
            state.entries().map((e) => e.json),
          )),
    );
    this.#add(this.#subscribers, response);
  }

  /**
   * Starts an OFREP event stream: one refetchEvaluation at once unless Last-Event-ID names the
   * current revision of this process (the client saw every change), then one per change.
   * Missed changes need no replay: one refetch catches up on all of them.
   */
  subscribeOfrep(request: IncomingMessage, response: ServerResponse): void {
    const { state, boot } = this.#options;
    const seen = parseStreamId(boot, lastEventId(request)) === state.revision;
    response.writeHead(200, STREAM_HEADERS);
    response.write(STREAM_PREAMBLE + (seen ? "" : refetchEvent(boot, state.revision, state.configEtag())));
    this.#add(this.#ofrepSubscribers, response);
  }

  /** Sends changes (in order) to every subscriber and remembers them for resumes. */
  publish(changes: readonly FlagChange[]): void {
    if (changes.length === 0) return;
    const { state, boot } = this.#options;
    let text = "";
    for (const change of changes) {
      // An update's data is the flag's current JSON; the state holds it already rendered.
      const json = change.kind === "update" ? (state.get(change.flag.name)?.json ?? "") : "";
      const event = changeEvent(boot, change, json);
      this.#history.add(change.revision, event);
      text += event;
    }
    this.#broadcast(this.#subscribers, text);
    const last = changes[changes.length - 1];
    if (last && this.#ofrepSubscribers.size > 0) {
      // One refetch per batch: a relist of thousands of flags is one refetch, not thousands.
      this.#broadcast(this.#ofrepSubscribers, refetchEvent(boot, last.revision, state.configEtag()));
    }
  }

  /** Ends every stream (shutdown): clients reconnect, to another replica or to our successor. */
  close(): void {
    clearInterval(this.#heartbeat);
    for (const subscribers of [this.#subscribers, this.#ofrepSubscribers]) {
      for (const response of subscribers) response.end();
      subscribers.clear();
    }
  }

  #add(subscribers: Set<ServerResponse>, response: ServerResponse): void {
    subscribers.add(response);
    this.#options.stats.streamsOpened++;
    response.on("close", () => subscribers.delete(response));
  }

  #broadcast(subscribers: Set<ServerResponse>, text: string): void {
    for (const response of subscribers) {
      response.write(text);
      if (response.writableLength > this.#maxBacklog) {
        this.#options.stats.slowStreamsDropped++;
        subscribers.delete(response);
        response.destroy();
      }
    }
  }
}

function lastEventId(request: IncomingMessage): string | undefined {
  const header = request.headers["last-event-id"];
  return Array.isArray(header) ? header[0] : header;
}
