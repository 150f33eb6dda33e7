/**
 * Headers of every response the dashboard server writes itself (the app and its assets, its own
 * errors). The app ships no inline script or style (Vite builds them into files), so the policy
 * allows only this origin; the API's answers keep the API's own, stricter headers.
 */
export const DASHBOARD_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; "),
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
