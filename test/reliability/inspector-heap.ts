// A Node process's live JS heap, read through its inspector (started with --inspect on a
// loopback port) after a full garbage collection: unlike RSS, which V8 grows lazily and seldom
// gives back, it tells retained memory from garbage not yet collected.
import { once } from "node:events";

const MIB = 1024 * 1024;

/** The V8 heap in use, in MiB, right after a full GC of the process listening on `port`. */
export async function heapAfterGcMib(port: number): Promise<number> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (url === undefined) throw new Error(`no inspector target on port ${port}`);
  const socket = new WebSocket(url);
  await once(socket, "open");
  let nextId = 0;
  const call = (method: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = ++nextId;
      const timer = setTimeout(() => {
        reject(new Error(`${method}: no answer in 60 s`));
      }, 60_000);
      const onMessage = (event: MessageEvent) => {
        const message = JSON.parse(String(event.data)) as { id?: number; result?: Record<string, unknown> };
        if (message.id !== id) return;
        clearTimeout(timer);
        socket.removeEventListener("message", onMessage);
        resolve(message.result ?? {});
      };
      socket.addEventListener("message", onMessage);
      socket.send(JSON.stringify({ id, method }));
    });
  try {
    await call("HeapProfiler.collectGarbage");
    const usage = await call("Runtime.getHeapUsage");
    return Number(usage["usedSize"]) / MIB;
  } finally {
    socket.close();
  }
}
