// The read fast path. node:http costs ~50 µs of CPU per request on this machine, twice the 40,000
// req/s budget of a core; most of it is generic machinery (parser objects, request and response
// streams, header validation). Reads of flags are the plain case: body-less GETs answered with
// bytes prepared in advance. This front accepts each connection, answers chunks made only of such
// requests itself, and hands the connection — unread bytes included — to node:http at the first
// chunk that is anything else (a POST, a stream, a partial request, an unusual header), for the
// rest of its life. Only the recognising is new code; every other request gets node:http's parser.
import { STATUS_CODES, type Server as HttpServer } from "node:http";
import { createServer, type Server, type Socket } from "node:net";
import type { PreparedResponse } from "./responses.ts";

/** Headers that change how a request is framed or answered: a request with one goes to node:http. */
const FRAMING_HEADERS = new Set([
  "content-length",
  "transfer-encoding",
  "upgrade",
  "expect",
  "te",
  "trailer",
]);
const TARGET = /^\/[\x21-\x7e]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Whether a header line holds a control character other than tab (CR and LF included). */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code < 0x20 && code !== 0x09) || code === 0x7f) return true;
  }
  return false;
}

/**
 * The request targets of a chunk that holds only complete HTTP/1.1 GET requests without a body
 * and with plain headers (a Host, well-formed names, no framing headers, no `Connection` other
 * than keep-alive), or undefined when the chunk is anything else.
 */
export function simpleGetTargets(chunk: string): string[] | undefined {
  const targets: string[] = [];
  let at = 0;
  while (at < chunk.length) {
    const end = chunk.indexOf("\r\n\r\n", at);
    const lineEnd = chunk.indexOf("\r\n", at);
    if (end === -1 || lineEnd === end) return undefined;
    const line = chunk.slice(at, lineEnd);
    if (!line.startsWith("GET ") || !line.endsWith(" HTTP/1.1")) return undefined;
    const target = line.slice(4, -9);
    if (!TARGET.test(target)) return undefined;
    let hasHost = false;
    for (const header of chunk.slice(lineEnd + 2, end).split("\r\n")) {
      const colon = header.indexOf(":");
      const name = colon > 0 ? header.slice(0, colon).toLowerCase() : "";
      if (!HEADER_NAME.test(name) || hasControl(header) || FRAMING_HEADERS.has(name)) return undefined;
      if (
        name === "connection" &&
        header
          .slice(colon + 1)
          .trim()
          .toLowerCase() !== "keep-alive"
      )
        return undefined;
      if (name === "host") hasHost = true;
    }
    if (!hasHost) return undefined;
    targets.push(target);
    at = end + 4;
  }
  return targets.length > 0 ? targets : undefined;
}

/** Status line and headers as node:http would send them on a kept-alive connection. */
export function responseHead(prepared: PreparedResponse, date: string): string {
  let head = `HTTP/1.1 ${prepared.status} ${STATUS_CODES[prepared.status] ?? ""}\r\n`;
  for (let i = 0; i < prepared.headers.length; i += 2) {
    head += `${prepared.headers[i] ?? ""}: ${prepared.headers[i + 1] ?? ""}\r\n`;
  }
  return `${head}Date: ${date}\r\nConnection: keep-alive\r\nKeep-Alive: timeout=${KEEP_ALIVE_S}\r\n\r\n`;
}

const KEEP_ALIVE_S = 65;
/** Unsent bytes a connection may accumulate (a client pipelining without reading) before it is dropped. */
const MAX_BACKLOG = 1024 * 1024;

export interface FastFront {
  server: Server;
  /** Destroys the connections still on the fast path (they are idle between chunks). */
  closeIdle: () => void;
}

/**
 * A TCP server that answers simple reads with `read(path)` and gives everything else to `http`.
 * `read` returns undefined for a path it does not serve, which also hands the connection over.
 */
export function createFastFront(
  http: HttpServer,
  read: (path: string) => PreparedResponse | undefined,
): FastFront {
  // Whole responses (head with the current Date, then body) per prepared response, per second.
  let second = -1;
  let date = "";
  let wire = new WeakMap<PreparedResponse, Buffer>();
  const fast = new Set<Socket>();

  const answer = (chunk: string): Buffer[] | undefined => {
    const targets = simpleGetTargets(chunk);
    if (targets === undefined) return undefined;
    const now = Math.floor(Date.now() / 1000);
    if (now !== second) {
      second = now;
      date = new Date(now * 1000).toUTCString();
      wire = new WeakMap();
    }
    const out: Buffer[] = [];
    for (const target of targets) {
      const query = target.indexOf("?");
      const prepared = read(query === -1 ? target : target.slice(0, query));
      if (prepared === undefined) return undefined;
      let bytes = wire.get(prepared);
      if (bytes === undefined) {
        bytes = Buffer.concat([Buffer.from(responseHead(prepared, date), "latin1"), prepared.body]);
        wire.set(prepared, bytes);
      }
      out.push(bytes);
    }
    return out;
  };

  const server = createServer({ noDelay: true, keepAlive: true }, (socket) => {
    fast.add(socket);
    const onError = () => socket.destroy();
    const onTimeout = () => socket.destroy();
    const onData = (chunk: Buffer) => {
      const responses = answer(chunk.toString("latin1"));
      if (responses === undefined) {
        // Hand over: node:http reads this chunk again, then everything after it.
        fast.delete(socket);
        socket.off("data", onData).off("error", onError).off("timeout", onTimeout);
        socket.setTimeout(0);
        socket.pause();
        socket.unshift(chunk);
        http.emit("connection", socket);
        socket.resume();
        return;
      }
      for (const bytes of responses) socket.write(bytes);
      if (socket.writableLength > MAX_BACKLOG) socket.destroy();
    };
    socket
      .on("data", onData)
      .on("error", onError)
      .on("timeout", onTimeout)
      .on("close", () => fast.delete(socket));
    socket.setTimeout(KEEP_ALIVE_S * 1000);
  });

  return {
    server,
    closeIdle: () => {
      for (const socket of fast) socket.destroy();
      fast.clear();
    },
  };
}
