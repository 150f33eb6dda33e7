// The floor of the sidecar's stream load test: a bare node:http server that holds server-sent
// event connections and writes given bytes to all of them, as a process of its own (pinned like
// the sidecar), so that the sidecar's memory and fan-out time have a same-run reference.
import { freeLoopbackPort } from "@svc/kube";
import { superviseProcess, type SupervisedProcess } from "@svc/localkube";

/**
 * GET /flags/stream: the stream head, then the snapshot bytes; POST /snapshot sets those bytes;
 * POST /publish writes its body to every open stream. Nothing else: no history, no backlog bound.
 */
const BARE_SSE_SERVER = `
const subscribers = new Set();
let snapshot = "";
require("node:http")
  .createServer((request, response) => {
    if (request.method === "POST") {
      const chunks = [];
      request.on("data", (chunk) => chunks.push(chunk));
      request.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        if (request.url === "/snapshot") snapshot = text;
        else for (const subscriber of subscribers) subscriber.write(text);
        response.end();
      });
      return;
    }
    response.writeHead(200, ["Content-Type", "text/event-stream; charset=utf-8", "Cache-Control", "no-cache"]);
    response.write(snapshot);
    subscribers.add(response);
    response.on("close", () => subscribers.delete(response));
  })
  .listen(Number(process.env.PORT), "127.0.0.1");
`;

export interface BareSseServer {
  url: string;
  pid: number;
  setSnapshot: (text: string) => Promise<void>;
  publish: (text: string) => Promise<void>;
  stop: () => Promise<void>;
}

export async function startBareSseServer(cpus?: string): Promise<BareSseServer> {
  const port = await freeLoopbackPort();
  const command = [process.execPath, "-e", BARE_SSE_SERVER];
  const pinned = cpus === undefined ? command : ["taskset", "-c", cpus, ...command];
  const child: SupervisedProcess = superviseProcess({
    name: "bare node:http SSE server",
    command: pinned[0] ?? "",
    args: pinned.slice(1),
    env: { PATH: process.env["PATH"] ?? "", PORT: String(port) },
  });
  const url = `http://127.0.0.1:${port}`;
  const post = async (path: string, text: string) => {
    const reply = await fetch(`${url}${path}`, { method: "POST", body: text });
    await reply.arrayBuffer();
  };
  await child.waitReady(
    () =>
      post("/snapshot", "").then(
        () => true,
        () => false,
      ),
    30_000,
    20,
  );
  return {
    url,
    pid: child.pid ?? -1,
    setSnapshot: (text) => post("/snapshot", text),
    publish: (text) => post("/publish", text),
    stop: () => child.stop({ graceMs: 2_000 }),
  };
}
