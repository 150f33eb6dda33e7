// The operator's HTTP endpoints on its metrics port.
import { createServer, type Server } from "node:http";

/** /metrics, /healthz (the process runs) and /readyz (it leads, or stands by ready to). */
export function metricsServer(
  metrics: () => Promise<string>,
  contentType: string,
  leading: () => boolean,
): Server {
  return createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    if (request.method !== "GET") {
      response.writeHead(405, { "content-type": "application/json" }).end('{"error":"only GET is served"}');
    } else if (path === "/metrics") {
      metrics().then(
        (text) => response.writeHead(200, { "content-type": contentType }).end(text),
        (error: unknown) =>
          response
            .writeHead(500, { "content-type": "application/json" })
            .end(JSON.stringify({ error: String(error) })),
      );
    } else if (path === "/healthz" || path === "/readyz") {
      response.writeHead(200, { "content-type": "text/plain", "x-svc-leader": String(leading()) }).end("ok");
    } else {
      response.writeHead(404, { "content-type": "application/json" }).end('{"error":"not found"}');
    }
  });
}
