// List and watch of one namespace's FeatureFlags over plain HTTPS (kube-connection.ts says why
// not client-node). Thin: no decisions beyond parsing what the API server sends.
import type { IncomingMessage } from "node:http";
import * as http from "node:http";
import * as https from "node:https";
import { API_GROUP, API_VERSION, FEATURE_FLAG } from "@svc/core/vocabulary";
import { KubeApiError, parseStatusBody } from "@svc/kube-wire";
import type { ListQuery } from "./backoff.ts";
import type { FeatureFlagObject, WatchEventType } from "./flags.ts";
import type { KubeConnection } from "./kube-connection.ts";

export interface FlagList {
  items: FeatureFlagObject[];
  resourceVersion: string;
}

export interface FlagWatchEvent {
  type: WatchEventType | "BOOKMARK";
  object: FeatureFlagObject;
}

export interface WatchOptions {
  resourceVersion: string;
  /** Called once the API server accepted the watch (a 200). */
  onOpen: () => void;
  onEvent: (event: FlagWatchEvent) => void;
  signal: AbortSignal;
  /** The API server ends the watch after this long; a new one starts at once. */
  timeoutSeconds: number;
  /** Aborts a watch that sent nothing (not even a bookmark) for this long: a dead connection. */
  silenceMs: number;
}

const LIST_PAGE = 500;

export class FeatureFlagClient {
  readonly #connection: KubeConnection;
  readonly #path: string;
  readonly #agent: http.Agent;

  constructor(connection: KubeConnection, namespace: string) {
    this.#connection = connection;
    this.#path = `/apis/${API_GROUP}/${API_VERSION}/namespaces/${encodeURIComponent(namespace)}/${FEATURE_FLAG.plural}`;
    const tls = {
      keepAlive: true,
      ...(connection.ca && { ca: connection.ca }),
      ...(connection.cert && { cert: connection.cert }),
      ...(connection.key && { key: connection.key }),
      ...(connection.servername !== undefined && { servername: connection.servername }),
      rejectUnauthorized: connection.rejectUnauthorized,
    };
    this.#agent = connection.server.startsWith("https:")
      ? new https.Agent(tls)
      : new http.Agent({ keepAlive: true });
  }

  /**
   * Every FeatureFlag of the namespace, with the list's resourceVersion; `from` (backoff.ts
   * `listQuery`) says which state to list and whether in pages. A continue token carries the
   * first page's resourceVersion, so later pages send only it.
   */
  async list(signal: AbortSignal, from: ListQuery): Promise<FlagList> {
    const items: FeatureFlagObject[] = [];
    let next: string | undefined;
    for (;;) {
      const query = new URLSearchParams();
      if (from.paged) query.set("limit", String(LIST_PAGE));
      if (next !== undefined) query.set("continue", next);
      else {
        if (from.resourceVersion !== undefined) query.set("resourceVersion", from.resourceVersion);
        if (from.resourceVersionMatch !== undefined)
          query.set("resourceVersionMatch", from.resourceVersionMatch);
      }
      const response = await this.#request(`${this.#path}?${query.toString()}`, signal);
      const body = await readBody(response);
      if (response.statusCode !== 200) throw apiError("list", response.statusCode, body);
      const page = JSON.parse(body) as {
        items?: FeatureFlagObject[];
        metadata?: { resourceVersion?: string; continue?: string };
      };
      // Keep only what the sidecar reads: a page's full objects (managedFields, status) are garbage at once.
      for (const item of page.items ?? []) items.push(slim(item));
      next = page.metadata?.continue || undefined;
      if (next === undefined) return { items, resourceVersion: page.metadata?.resourceVersion ?? "" };
    }
  }

  /** Watches from `resourceVersion`; resolves when the server ends the watch, rejects on failure. */
  async watch(options: WatchOptions): Promise<void> {
    const query = new URLSearchParams({
      watch: "1",
      resourceVersion: options.resourceVersion,
      allowWatchBookmarks: "true",
      timeoutSeconds: String(options.timeoutSeconds),
    });
    const response = await this.#request(`${this.#path}?${query.toString()}`, options.signal);
    if (response.statusCode !== 200) throw apiError("watch", response.statusCode, await readBody(response));
    options.onOpen();
    await new Promise<void>((resolve, reject) => {
      let pending = "";
      let silence: NodeJS.Timeout | undefined;
      const fail = (error: Error) => {
        clearTimeout(silence);
        response.destroy();
        reject(error);
      };
      const arm = () => {
        clearTimeout(silence);
        silence = setTimeout(() => {
          fail(new Error(`watch sent nothing for ${options.silenceMs} ms`));
        }, options.silenceMs);
        silence.unref();
      };
      arm();
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        arm();
        pending += chunk;
        let newline: number;
        while ((newline = pending.indexOf("\n")) !== -1) {
          const line = pending.slice(0, newline);
          pending = pending.slice(newline + 1);
          if (line.trim() === "") continue;
          try {
            const event = JSON.parse(line) as { type: string; object: unknown };
            if (event.type === "ERROR") {
              const status = event.object as { code?: number; message?: string; reason?: string };
              // without a code, a failure like any other (only 410 and 504 change what is listed)
              throw new KubeApiError(
                status.code ?? 500,
                `watch: ${status.message ?? "error event"}`,
                status.reason,
              );
            }
            options.onEvent(event as FlagWatchEvent);
          } catch (error) {
            fail(error instanceof Error ? error : new Error(String(error)));
            return;
          }
        }
      });
      response.on("end", () => {
        clearTimeout(silence);
        resolve();
      });
      response.on("error", fail);
      // 'close' without 'end': the connection dropped (API server stopped, network cut).
      response.on("close", () => {
        if (!response.complete) fail(new Error("watch connection closed"));
      });
    });
  }

  close(): void {
    this.#agent.destroy();
  }

  #request(path: string, signal: AbortSignal): Promise<IncomingMessage> {
    const url = new URL(this.#connection.server + path);
    const token = this.#connection.token();
    const headers: Record<string, string> = { Accept: "application/json" };
    if (token !== undefined) headers["Authorization"] = `Bearer ${token}`;
    const send = url.protocol === "https:" ? https.request : http.request;
    return new Promise((resolve, reject) => {
      const request = send(url, { agent: this.#agent, headers, signal }, resolve);
      request.on("error", reject);
      request.end();
    });
  }
}

function slim(object: FeatureFlagObject): FeatureFlagObject {
  const { metadata, spec } = object;
  return {
    metadata: { name: metadata?.name, resourceVersion: metadata?.resourceVersion },
    spec: {
      type: spec?.type,
      defaultValue: spec?.defaultValue,
      enabled: spec?.enabled,
      key: spec?.key,
      variants: spec?.variants,
      defaultVariant: spec?.defaultVariant,
      targeting: spec?.targeting,
      evaluators: spec?.evaluators,
      metadata: spec?.metadata,
    },
  };
}

function readBody(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = "";
    response.setEncoding("utf8");
    response.on("data", (chunk: string) => (body += chunk));
    response.on("end", () => {
      resolve(body);
    });
    response.on("error", reject);
  });
}

function apiError(what: string, status: number | undefined, body: string): Error {
  // not a Status object: the raw text
  const parsed = parseStatusBody(body);
  const message = `${what} failed (${status ?? "no status"}): ${parsed.message ?? body.slice(0, 500)}`;
  return status === undefined ? new Error(message) : new KubeApiError(status, message, parsed.reason);
}
