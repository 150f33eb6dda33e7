/**
 * The Content-Security-Policy of everything the dashboard server writes itself. The app ships no
 * inline script or style (Vite builds them into files), so the policy allows only this origin,
 * plus, for index.html, one nonce for styles: Radix's dialogs lock scrolling with a <style>
 * element they insert (react-remove-scroll), which carries the nonce the page was served with.
 */
export function contentSecurityPolicy(styleNonce?: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    styleNonce === undefined ? "style-src 'self'" : `style-src 'self' 'nonce-${styleNonce}'`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** Headers of every response the dashboard server writes itself; the API's answers keep the API's own, stricter headers. */
export const DASHBOARD_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": contentSecurityPolicy(),
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
};

/** Hashed assets never change under their name; index.html must be asked for every time. */
export function cacheControlFor(path: string): string {
  return /\/assets\/[^/]+-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/.test(path)
    ? "public, max-age=31536000, immutable"
    : "no-cache";
}

/** The parts of a proxy error (@fastify/reply-from's, wrapping the socket's) the answer uses. */
export interface ProxyErrorLike {
  statusCode?: number;
  code?: string;
  cause?: unknown;
}

/**
 * What the browser is told when the API server cannot be asked: 504 when it took too long, 502
 * otherwise (refused, reset, unknown host), as JSON `{error}` like every other error of svc.
 */
export function proxyFailure(error: ProxyErrorLike, apiUrl: string): { status: number; error: string } {
  if (error.statusCode === 504)
    return { status: 504, error: `the API server at ${apiUrl} did not answer in time` };
  const cause = error.cause as { code?: unknown } | undefined;
  const code = typeof cause?.code === "string" ? cause.code : error.code;
  return {
    status: 502,
    error: `the API server at ${apiUrl} is unreachable${code === undefined ? "" : ` (${code})`}`,
  };
}

/** A request's headers as node:http gives them. */
export type RequestHeaders = Record<string, string | string[] | undefined>;

/**
 * The headers the proxy sends the API server for a browser's request. The browser's address
 * replaces any X-Forwarded-For it sent (the dashboard is the edge). A GET or HEAD is passed on
 * without its body (Fastify does not read one, so the proxy sends none), so its Content-Length
 * and Transfer-Encoding are dropped too: kept, they made the API server wait for a body that
 * never came and read the next request on the same upstream connection, another user's
 * perhaps, as that body (the hostile-input suite found it: that request got a 504).
 */
export function upstreamHeaders(
  method: string,
  headers: RequestHeaders,
  clientIp: string,
  proxySecret?: string,
): RequestHeaders {
  const forwarded: RequestHeaders = { ...headers, "x-forwarded-for": clientIp };
  // The API believes X-Forwarded-For with the secret only (its http/client-address.ts): one a
  // browser sent is dropped, never passed on.
  delete forwarded["x-svc-proxy-secret"];
  if (proxySecret !== undefined) forwarded["x-svc-proxy-secret"] = proxySecret;
  if (method === "GET" || method === "HEAD") {
    delete forwarded["content-length"];
    delete forwarded["transfer-encoding"];
  }
  return forwarded;
}

/**
 * Why a request is refused before it could reach the API server, if it is: a body larger than
 * the API takes, or one of unknown length (a browser always sends Content-Length). The API
 * answers such a body (413) before reading it all and closes the connection; the proxy, still
 * sending, then saw a broken pipe and answered 502 "unreachable" (the hostile-input suite found
 * it). A GET's or HEAD's body is never passed on, so it is not judged.
 */
export function bodyRefusal(
  method: string,
  headers: RequestHeaders,
  limitBytes: number,
): { status: number; error: string } | undefined {
  if (method === "GET" || method === "HEAD") return undefined;
  const length = headers["content-length"];
  if (length === undefined) {
    return headers["transfer-encoding"] === undefined
      ? undefined
      : { status: 411, error: "a request body needs a Content-Length" };
  }
  return Number(length) > limitBytes
    ? { status: 413, error: `the request body is larger than ${limitBytes} bytes` }
    : undefined;
}
