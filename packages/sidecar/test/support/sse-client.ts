// A minimal server-sent events client for the tests and the benchmark: records every event and
// comment of one /flags/stream connection, and can call back on each event as it arrives.
import { request, type ClientRequest, type IncomingMessage } from "node:http";

export interface StreamEvent {
  id: string | undefined;
  event: string;
  data: unknown;
}

export interface StreamRecording {
  events: StreamEvent[];
  comments: string[];
  response: IncomingMessage;
  /** Whether the server ended the stream. */
  ended: () => boolean;
  close: () => void;
}

export async function openStream(
  url: string,
  headers: Record<string, string> = {},
  onEvent?: (event: StreamEvent) => void,
  /** `/ofrep/v1/events` for OFREP's stream. */
  path = "/flags/stream",
): Promise<StreamRecording> {
  let req: ClientRequest | undefined;
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    req = request(`${url}${path}`, { headers: { Accept: "text/event-stream", ...headers } }, resolve);
    req.on("error", reject);
    req.end();
  });
  const events: StreamEvent[] = [];
  const comments: string[] = [];
  let ended = false;
  let pending = "";
  response.setEncoding("utf8");
  response.on("data", (chunk: string) => {
    pending += chunk;
    let end: number;
    while ((end = pending.indexOf("\n\n")) !== -1) {
      const block = pending.slice(0, end);
      pending = pending.slice(end + 2);
      const fields = new Map<string, string>();
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) comments.push(line.slice(1).trim());
        else {
          const colon = line.indexOf(": ");
          if (colon !== -1) fields.set(line.slice(0, colon), line.slice(colon + 2));
        }
      }
      const data = fields.get("data");
      if (data !== undefined) {
        const event = {
          id: fields.get("id"),
          event: fields.get("event") ?? "message",
          data: JSON.parse(data) as unknown,
        };
        events.push(event);
        onEvent?.(event);
      }
    }
  });
  response.on("end", () => (ended = true));
  response.on("close", () => (ended = true));
  return {
    events,
    comments,
    response,
    ended: () => ended,
    close: () => req?.destroy(),
  };
}

/** Adapts a synchronous read to `eventually`, which polls promises. */
export function poll<T>(read: () => T): () => Promise<T> {
  return () => Promise.resolve(read());
}
