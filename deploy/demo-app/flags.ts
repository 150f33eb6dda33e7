// The demo application's pure part: which flags a workload sees, as JSON and as a small page.
// The server (server.ts) gathers the inputs on every request; nothing here does I/O.

/** What GET /flags.json answers. */
export interface FlagView {
  /** Every environment variable whose name starts with FLAG_. */
  env: Record<string, string>;
  /** Every file under the flags folder, as "<configMapName>/<key>" → its content. */
  files: Record<string, string>;
  /** The sidecar's GET /flags, `{ error }` when it failed, null when no sidecar is configured. */
  sidecar: unknown;
  /** Its subscription to the sidecar's /flags/stream; null when no sidecar is configured. */
  stream: StreamView | null;
  hostname: string;
  startedAt: string;
}

export interface StreamView {
  connected: boolean;
  /** Events received since start (the snapshot on each connection, then every change). */
  events: number;
  /** The last one, as "<event> <data>". */
  lastEvent: string | null;
}

/**
 * Splits server-sent events off the text received so far: the complete records (a blank line
 * ends one) as "<event> <data>" (comments and heartbeats have no event name and are dropped),
 * and the incomplete rest to keep for the next chunk.
 */
export function takeEvents(buffer: string): { events: string[]; rest: string } {
  const events: string[] = [];
  let rest = buffer;
  for (let end = rest.indexOf("\n\n"); end !== -1; end = rest.indexOf("\n\n")) {
    const lines = rest.slice(0, end).split("\n");
    rest = rest.slice(end + 2);
    const name = lines.find((line) => line.startsWith("event: "))?.slice("event: ".length);
    const data = lines
      .filter((line) => line.startsWith("data: "))
      .map((line) => line.slice("data: ".length))
      .join("\n");
    if (name !== undefined) events.push(`${name} ${data}`);
  }
  return { events, rest };
}

export const ENV_PREFIX = "FLAG_";

/**
 * The demo of a bad flag value (docs/safe-changes.md): with this variable "true" the app exits
 * at start, as an app does that cannot parse its configuration; its pods crash-loop.
 */
export const CRASH_ON_START = "FLAG_CRASH_ON_START";

export function asksToCrash(env: Readonly<Record<string, string | undefined>>): boolean {
  return env[CRASH_ON_START] === "true";
}

/** The FLAG_* variables of an environment, sorted by name. */
export function envFlags(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const flags: Record<string, string> = {};
  for (const name of Object.keys(env).sort()) {
    const value = env[name];
    if (name.startsWith(ENV_PREFIX) && value !== undefined) flags[name] = value;
  }
  return flags;
}

/**
 * Whether a folder entry of a ConfigMap volume is one of its keys. Kubernetes keeps the data in
 * a timestamped folder (`..2026_11_23_...`), points `..data` at it and links each key through
 * it: the dot entries are its machinery, not keys.
 */
export function isFlagEntry(name: string): boolean {
  return name !== "" && !name.startsWith(".");
}

/** The sidecar's port, or undefined when the variable is unset or empty; throws on a bad one. */
export function sidecarPort(value: string | undefined): number | undefined {
  if (value === undefined || value === "") return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new Error(`SVC_SIDECAR_PORT must be a port number (1-65535), got "${value}"`);
  return port;
}

export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

function table(caption: string, rows: Record<string, string>): string {
  const names = Object.keys(rows);
  if (names.length === 0) return `<h2>${escapeHtml(caption)}</h2><p><em>none</em></p>`;
  const body = names
    .map((name) => `<tr><th>${escapeHtml(name)}</th><td><pre>${escapeHtml(rows[name] ?? "")}</pre></td></tr>`)
    .join("\n");
  return `<h2>${escapeHtml(caption)}</h2>\n<table>\n${body}\n</table>`;
}

/** The page of GET /: the same view as /flags.json, readable, refreshed every 5 seconds. */
export function renderPage(view: FlagView): string {
  const sidecar =
    view.sidecar === null
      ? "<p><em>no sidecar (SVC_SIDECAR_PORT is not set)</em></p>"
      : `<pre>${escapeHtml(JSON.stringify(view.sidecar, null, 2))}</pre>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="refresh" content="5">
<title>svc demo: ${escapeHtml(view.hostname)}</title>
<style>body{font-family:sans-serif;margin:2em}th{text-align:left;padding-right:1em;vertical-align:top}pre{margin:0}</style>
</head>
<body>
<h1>Flags seen by ${escapeHtml(view.hostname)}</h1>
<p>Started ${escapeHtml(view.startedAt)}. JSON: <a href="/flags.json">/flags.json</a></p>
${table("Environment (FLAG_*)", view.env)}
${table("Files (configMap/key)", view.files)}
<h2>Sidecar</h2>
${sidecar}
${view.stream === null ? "" : `<p>Change stream: ${view.stream.connected ? "connected" : "not connected"}, ${view.stream.events} events; last: <code>${escapeHtml(view.stream.lastEvent ?? "none")}</code></p>`}
</body>
</html>
`;
}
