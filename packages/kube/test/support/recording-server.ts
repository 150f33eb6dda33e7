// A stand-in for an API server an admin might point a ClusterConnection at: it records every
// request that reaches it (after TLS, when it serves HTTPS) with its Authorization header, so a
// test can prove which credentials were sent, and answers /version so a connection looks alive.
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { Certificate } from "@svc/localkube";

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
}

export interface RecordingServer {
  /** https://127.0.0.1:<port> or http://127.0.0.1:<port>. */
  url: string;
  requests: RecordedRequest[];
  /** TLS handshakes that failed (the client refused the certificate, or gave up). */
  tlsFailures: number;
  close(): Promise<void>;
}

function answer(requests: RecordedRequest[]) {
  return (request: IncomingMessage, response: ServerResponse) => {
    requests.push({
      method: request.method ?? "",
      path: request.url ?? "",
      authorization: request.headers.authorization,
    });
    response.setHeader("content-type", "application/json");
    if (request.url === "/version") response.end(JSON.stringify({ gitVersion: "v1.99.0-recording" }));
    else {
      response.statusCode = 403;
      response.end(JSON.stringify({ kind: "Status", reason: "Forbidden", message: "recording server" }));
    }
  };
}

/** Serves HTTPS with `certificate` (plain HTTP without one) on 127.0.0.1. */
export async function startRecordingServer(certificate?: Certificate): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const state = { tlsFailures: 0 };
  const server =
    certificate === undefined
      ? createHttpServer(answer(requests))
      : createHttpsServer(
          {
            cert: await readFile(certificate.certPath),
            key: await readFile(certificate.keyPath),
          },
          answer(requests),
        );
  server.on("tlsClientError", () => {
    state.tlsFailures += 1;
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `${certificate === undefined ? "http" : "https"}://127.0.0.1:${port}`,
    requests,
    get tlsFailures() {
      return state.tlsFailures;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, "close").catch(() => undefined);
    },
  };
}
