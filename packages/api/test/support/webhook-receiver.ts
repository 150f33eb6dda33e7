// A real webhook receiver on 127.0.0.1 (node:http) that can be taken down and brought back on
// the same port, or made to hang; and a receiver's own check of svc's signature.
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { DEFAULT_WEBHOOK_CONFIG, type WebhookConfig } from "../../src/config.ts";

export interface Received {
  eventId: string;
  signature: string;
  body: string;
}

export class WebhookReceiver {
  readonly received: Received[] = [];
  /** Requests that arrived while hanging, never answered. */
  hung = 0;
  port = 0;
  #server: Server | undefined;
  readonly #sockets = new Set<Socket>();
  readonly #mode: "answer" | "hang";

  private constructor(mode: "answer" | "hang") {
    this.#mode = mode;
  }

  static async start(mode: "answer" | "hang" = "answer"): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(mode);
    await receiver.up();
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  /** Listens (again) on its port; the first time on any free one. */
  async up(): Promise<void> {
    const server = createServer((req, res) => void this.#handle(req, res));
    server.on("connection", (socket) => {
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => {
        resolve();
      });
    });
    this.port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  /** Stops listening and cuts every connection: svc's attempts are refused until up() again. */
  async down(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const socket of this.#sockets) socket.destroy();
    if (server !== undefined) await new Promise((resolve) => server.close(resolve));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (this.#mode === "hang") {
      this.hung += 1;
      this.received.push(this.#record(req, chunks));
      return;
    }
    this.received.push(this.#record(req, chunks));
    res.writeHead(204).end();
  }

  #record(req: IncomingMessage, chunks: Buffer[]): Received {
    return {
      eventId: String(req.headers["svc-event-id"] ?? ""),
      signature: String(req.headers["svc-signature"] ?? ""),
      body: Buffer.concat(chunks).toString("utf8"),
    };
  }

  distinctIds(): Set<string> {
    return new Set(this.received.map((r) => r.eventId));
  }
}

/** What a receiver does with `svc-signature: t=<unix>,v1=<hex>`: HMAC-SHA256 of "<t>.<body>". */
export function signatureVerifies(secret: string, received: Received): boolean {
  const parts = new Map(received.signature.split(",").map((part) => part.split("=", 2) as [string, string]));
  const t = parts.get("t");
  const v1 = parts.get("v1");
  if (t === undefined || v1 === undefined) return false;
  const expected = createHmac("sha256", secret).update(`${t}.${received.body}`).digest();
  const given = Buffer.from(v1, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Webhook settings for a test against a receiver on 127.0.0.1: loopback allowed, the outbox
 * polled every 100 ms, retries capped at `retryMaxDelayMs`, cache sightings held `graceMs`.
 */
export function loopbackWebhookConfig(graceMs: number, retryMaxDelayMs = 300): WebhookConfig {
  return {
    ...DEFAULT_WEBHOOK_CONFIG,
    allowedNetworks: ["127.0.0.1/32"],
    pollIntervalMs: 100,
    retryMaxDelayMs,
    observedGraceMs: graceMs,
  };
}
