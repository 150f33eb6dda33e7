// What every HTTP server of svc refuses, and how it says so: the largest body, and the answer to a
// request Node's parser refused before any route saw it.

/**
 * The largest request body the REST API takes (DESIGN.md §4; 413 beyond). The dashboard's proxy
 * refuses larger ones itself: the API answers them before reading them all and closes.
 */
export const API_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * The status and message for a request Node's HTTP parser refused before any route saw it
 * (its `clientError`), so that every server of the house answers it with a JSON error.
 */
export function httpClientErrorReply(
  error: { code?: string; message: string },
  maxHeaderBytes: number,
): { status: number; error: string } {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, error: `request headers are larger than ${maxHeaderBytes / 1024} KiB` };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, error: "the request was not received in time" };
    default:
      return { status: 400, error: `malformed HTTP request: ${error.message}` };
  }
}

const CLIENT_ERROR_REASONS: Readonly<Record<number, string>> = {
  400: "Bad Request",
  408: "Request Timeout",
  431: "Request Header Fields Too Large",
};

/**
 * The whole answer, as written on the socket, to a request Node's HTTP parser refused: the
 * status of `httpClientErrorReply`, a JSON {error}, the server's own `headers`; the connection
 * then closes.
 */
export function httpClientErrorAnswer(
  error: { code?: string; message: string },
  maxHeaderBytes: number,
  headers: Readonly<Record<string, string>> = {},
): string {
  const { status, error: message } = httpClientErrorReply(error, maxHeaderBytes);
  const body = JSON.stringify({ error: message });
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return (
    `HTTP/1.1 ${status} ${CLIENT_ERROR_REASONS[status] ?? ""}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `${lines.join("")}Content-Length: ${new TextEncoder().encode(body).length}\r\nConnection: close\r\n\r\n${body}`
  );
}
