// The read fast path. node:http costs ~50 µs of CPU per request on this machine, twice the 40,000
// req/s budget of a core; most of it is generic machinery (parser objects, request and response
// streams, header validation). Reads of flags are the plain case: body-less GETs answered with
// bytes prepared in advance. This sits in front of node:http's own connection handling: it takes
// each connection node:http's server accepts, answers chunks made only of such requests itself,
// and hands the connection — unread bytes included — to node:http at the first chunk that is
// anything else (a POST, a stream, a partial request, an unusual or oversized header), for the
// rest of its life. Only the recognising is new code; every other request gets node:http's
// parser, limits and timeouts, and node:http's server tracks and closes every connection.
import { maxHeaderSize, STATUS_CODES, type Server as HttpServer } from "node:http";
import type { Socket } from "node:net";
import { clientErrorAnswer, type PreparedResponse } from "./responses.ts";

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

/** Requests the fast path leaves to node:http, which may refuse them (431) by its own limits. */
export interface HeadLimits {
  /** A request head (request line and headers) of this many bytes or more. */
  maxHeadBytes: number;
  /** More header lines than this. */
  maxHeaders: number;
}

/**
 * The request targets of a chunk that holds only complete HTTP/1.1 GET requests without a body
 * and with plain headers (a Host, well-formed names, no framing headers, no `Connection` other
 * than keep-alive, within `limits`), or undefined when the chunk is anything else.
 */
export function simpleGetTargets(chunk: string, limits: HeadLimits): string[] | undefined {
  const targets: string[] = [];
  let at = 0;
  while (at < chunk.length) {
    const end = chunk.indexOf("\r\n\r\n", at);
    const lineEnd = chunk.indexOf("\r\n", at);
    if (end === -1 || lineEnd === end || end + 4 - at >= limits.maxHeadBytes) return undefined;
    const line = chunk.slice(at, lineEnd);
    if (!line.startsWith("GET ") || !line.endsWith(" HTTP/1.1")) return undefined;
    const target = line.slice(4, -9);
    if (!TARGET.test(target)) return undefined;
    const headers = chunk.slice(lineEnd + 2, end).split("\r\n");
    if (headers.length > limits.maxHeaders) return undefined;
    let hasHost = false;
    for (const header of headers) {
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
export function responseHead(prepared: PreparedResponse, date: string, keepAliveS: number): string {
  let head = `HTTP/1.1 ${prepared.status} ${STATUS_CODES[prepared.status] ?? ""}\r\n`;
  for (let i = 0; i < prepared.headers.length; i += 2) {
    head += `${prepared.headers[i] ?? ""}: ${prepared.headers[i + 1] ?? ""}\r\n`;
  }
  return `${head}Date: ${date}\r\nConnection: keep-alive\r\nKeep-Alive: timeout=${keepAliveS}\r\n\r\n`;
}

/** Unsent bytes a connection may accumulate (a client pipelining without reading) before it is dropped. */
const MAX_BACKLOG = 1024 * 1024;
/** The most headers a fast-path request may have; node:http allows 1,000 and judges the rest. */
const MAX_FAST_HEADERS = 64;
/** What node:http sends when a client is too slow with its request (the server's clientError answer). */
const REQUEST_TIMEOUT = clientErrorAnswer({ code: "ERR_HTTP_REQUEST_TIMEOUT", message: "" });

export interface FastPath {
  /** Ends the connections still on the fast path (they are idle between chunks): for shutdown. */
  closeIdle: () => void;
}

/**
 * Puts the fast path in front of `http`'s connection handling: simple reads are answered with
 * `read(path)` and reported to `answered`; everything else goes to node:http. `read` returns
 * undefined for a path it does not serve, which also hands the connection over. The server's
 * own settings give the limits: its header limits (requests near them go to node:http), its
 * headers timeout (a connection that sends nothing gets node:http's 408) and its keep-alive
 * timeout between requests.
 */
export function installFastPath<Read extends { response: PreparedResponse }>(
  http: HttpServer,
  read: (path: string) => Read | undefined,
  answered: (read: Read) => void,
  /** Connections it may answer at all; the others go to node:http from their first byte. */
  accepts: (socket: Socket) => boolean = () => true,
): FastPath {
  const [handOver, ...others] = http.listeners("connection") as ((socket: Socket) => void)[];
  if (handOver === undefined || others.length > 0) {
    throw new Error("fast path: expected node:http's one connection listener");
  }
  http.removeListener("connection", handOver);
  const limits: HeadLimits = {
    // node:http's process-wide limit (16 KiB unless --max-http-header-size says otherwise).
    maxHeadBytes: maxHeaderSize,
    maxHeaders: Math.min(MAX_FAST_HEADERS, http.maxHeadersCount ?? MAX_FAST_HEADERS),
  };
  const keepAliveS = Math.round(http.keepAliveTimeout / 1000);
  // Whole responses (head with the current Date, then body) per prepared response, per second.
  let second = -1;
  let date = "";
  let wire = new WeakMap<PreparedResponse, Buffer>();
  const fast = new Set<Socket>();

  /** The bytes answering a chunk, or undefined when node:http must read it. Counts nothing. */
  const answer = (chunk: string): { reads: Read[]; bytes: Buffer[] } | undefined => {
    const targets = simpleGetTargets(chunk, limits);
    if (targets === undefined) return undefined;
    const now = Math.floor(Date.now() / 1000);
    if (now !== second) {
      second = now;
      date = new Date(now * 1000).toUTCString();
      wire = new WeakMap();
    }
    const reads: Read[] = [];
    const bytes: Buffer[] = [];
    for (const target of targets) {
      const query = target.indexOf("?");
      const found = read(query === -1 ? target : target.slice(0, query));
      if (found === undefined) return undefined;
      const prepared = found.response;
      let whole = wire.get(prepared);
      if (whole === undefined) {
        whole = Buffer.concat([
          Buffer.from(responseHead(prepared, date, keepAliveS), "latin1"),
          prepared.body,
        ]);
        wire.set(prepared, whole);
      }
      reads.push(found);
      bytes.push(whole);
    }
    return { reads, bytes };
  };

  http.on("connection", (socket: Socket) => {
    if (!accepts(socket)) {
      handOver.call(http, socket);
      return;
    }
    fast.add(socket);
    let answeredOnce = false;
    const onError = () => socket.destroy();
    // Before the first request node:http allows headersTimeout, between requests keepAliveTimeout.
    const onTimeout = () => {
      if (!answeredOnce) socket.write(REQUEST_TIMEOUT);
      socket.destroy();
    };
    // node:http's server lets sockets half-open; a client that is done gets our end too.
    const onEnd = () => socket.end();
    const onData = (chunk: Buffer) => {
      const reply = answer(chunk.toString("latin1"));
      if (reply === undefined) {
        // Hand over: node:http reads this chunk again, then everything after it.
        fast.delete(socket);
        socket.off("data", onData).off("error", onError).off("timeout", onTimeout).off("end", onEnd);
        socket.setTimeout(0);
        socket.pause();
        socket.unshift(chunk);
        handOver.call(http, socket);
        socket.resume();
        return;
      }
      if (!answeredOnce) {
        answeredOnce = true;
        socket.setTimeout(http.keepAliveTimeout);
      }
      for (const found of reply.reads) answered(found);
      for (const bytes of reply.bytes) socket.write(bytes);
      if (socket.writableLength > MAX_BACKLOG) socket.destroy();
    };
    socket
      .on("data", onData)
      .on("error", onError)
      .on("timeout", onTimeout)
      .on("end", onEnd)
      .on("close", () => fast.delete(socket));
    socket.setTimeout(http.headersTimeout);
  });

  return {
    closeIdle: () => {
      for (const socket of fast) socket.destroy();
      fast.clear();
    },
  };
}
