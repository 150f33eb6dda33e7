// The lingering close of every HTTP server of svc (the API, the dashboard, the sidecar on Node and
// on Bun). A connection closed while its client is still sending (a body refused unread, with
// HTTP/1.0 or `Connection: close`) would be closed with unread bytes, which makes the kernel reset
// it, and the client, still writing, loses the answer it was sent. Instead, the answer goes out
// whole, then what the client still sends is read and discarded, within LINGER_LIMITS (core's
// lingerStep decides), and only then is the connection closed, as nginx's lingering_close does.
// Part of the process kit, since every server (the small sidecar included) needs it; at run time
// it imports only core's pure linger decision.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { LINGER_LIMITS, lingerStep, type LingerLimits } from "@svc/core/http/linger";

const lingering = new WeakSet<Duplex>();

/**
 * Reads and discards from `source` until it ends or a limit is reached, then calls `done` once:
 * with true when everything the client sent was read, false when a limit cut it short.
 */
function drain(
  source: NodeJS.ReadableStream,
  limits: LingerLimits,
  done: (clientEnded: boolean) => void,
): void {
  const started = performance.now();
  let drainedBytes = 0;
  let finished = false;
  const finish = (clientEnded: boolean) => {
    if (finished) return;
    const elapsedMs = performance.now() - started;
    if (lingerStep({ drainedBytes, elapsedMs, clientEnded }, limits) === "read") return;
    finished = true;
    clearTimeout(timer);
    done(clientEnded);
  };
  // The time limit, whether or not anything arrives.
  const timer = setTimeout(() => {
    finished = true;
    done(false);
  }, limits.maxMs);
  source
    .on("data", (chunk: Buffer | string) => {
      drainedBytes += chunk.length;
      finish(false);
    })
    .once("end", () => {
      finish(true);
    })
    .once("close", () => {
      finish(true);
    });
  source.resume();
}

/**
 * Ends our side of the connection after `answer` (our FIN follows it), reads on until the client
 * ends its side or a limit is reached, then closes.
 */
export function closeLingering(socket: Duplex, answer?: string, limits: LingerLimits = LINGER_LIMITS): void {
  if (lingering.has(socket)) return;
  lingering.add(socket);
  if (answer === undefined) socket.end();
  else socket.end(answer);
  drain(socket, limits, () => socket.destroy());
}

/**
 * A server's `clientError` (a request its HTTP parser refused): `answer` on the raw socket, then
 * a lingering close. As node:http's own handler, a reset peer or a response already under way
 * gets nothing; a second error on a connection already closing (its body still arriving) is
 * ignored.
 */
export function answerClientError(error: { code?: string }, socket: Duplex, answer: () => string): void {
  if (lingering.has(socket)) return;
  const response = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === "ECONNRESET" || !socket.writable || response?.headersSent === true) {
    socket.destroy();
    return;
  }
  closeLingering(socket, answer());
}

/** Whether the request announced a body that has not been read to its end. */
export function requestBodyUnread(request: IncomingMessage): boolean {
  const length = request.headers["content-length"];
  const declared =
    request.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
  return declared && !request.complete;
}

/**
 * Sends `body` (the head already written, with its Content-Length) and ends the response only once
 * the request's body is read (discarded) or a limit is reached, when the connection is cut. The
 * response-level lingering close, for runtimes that close from native code after the last
 * response (Bun's node:http), and for the request's own body with keep-alive.
 */
export function endAfterRequestBody(
  request: IncomingMessage,
  response: ServerResponse,
  body: Uint8Array,
  limits: LingerLimits = LINGER_LIMITS,
): void {
  response.write(body);
  drain(request, limits, (clientEnded) => {
    if (clientEnded) response.end();
    else response.destroy();
  });
}

/**
 * Makes `server` close every connection lingeringly. node:http ends a connection after its last
 * answer with the socket's destroySoon (end, then destroy once written, unread bytes or not),
 * which this replaces; other runtimes do not call it (endAfterRequestBody covers them).
 */
export function installLingeringClose(server: Server, limits: LingerLimits = LINGER_LIMITS): void {
  server.on("connection", (socket: Duplex & { destroySoon?: () => void }) => {
    socket.destroySoon = () => {
      closeLingering(socket, undefined, limits);
    };
  });
}
