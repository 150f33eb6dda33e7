// A full garbage collection in another Node process through its inspector (the process started
// with --inspect=127.0.0.1:<port>). Memory taken after it counts what the process holds, not the
// garbage V8 has yet to collect: under load V8 grows its heap by hundreds of MB and gives it back
// only when its memory reducer runs, some seconds to never after the load stops.

/** NODE_OPTIONS for a process whose heap `collectGarbage` may collect. */
export function inspectorNodeOptions(port: number): string {
  return `${process.env["NODE_OPTIONS"] ?? ""} --inspect=127.0.0.1:${port}`.trim();
}

const MIB = 1024 * 1024;

/** Sends `methods` in turn to the process's inspector and answers their results; bounded. */
async function callInspector(port: number, methods: readonly string[]): Promise<Record<string, unknown>[]> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    webSocketDebuggerUrl?: string;
  }[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (url === undefined) throw new Error(`no inspector target on port ${port}`);
  const socket = new WebSocket(url);
  const results: Record<string, unknown>[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener("open", () => {
        resolve();
      });
      socket.addEventListener("error", () => {
        reject(new Error(`inspector ${url} refused`));
      });
    });
    for (const [index, method] of methods.entries()) {
      const id = index + 1;
      const answered = new Promise<Record<string, unknown>>((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(new Error(`no answer to ${method} in 60 s`));
        }, 60_000);
        socket.addEventListener("message", function onMessage(event: MessageEvent) {
          const message = JSON.parse(String(event.data)) as { id?: number; result?: Record<string, unknown> };
          if (message.id !== id) return;
          clearTimeout(timer);
          socket.removeEventListener("message", onMessage);
          resolve(message.result ?? {});
        });
      });
      socket.send(JSON.stringify({ id, method }));
      results.push(await answered);
    }
  } finally {
    socket.close();
  }
  return results;
}

/** Two full collections (the second frees what the first's finalizers released); bounded. */
export async function collectGarbage(port: number): Promise<void> {
  await callInspector(port, ["HeapProfiler.collectGarbage", "HeapProfiler.collectGarbage"]);
}

/** The V8 heap in use, in MiB, right after two full collections (for a process without metrics). */
export async function heapUsedAfterGcMib(port: number): Promise<number> {
  const results = await callInspector(port, [
    "HeapProfiler.collectGarbage",
    "HeapProfiler.collectGarbage",
    "Runtime.getHeapUsage",
  ]);
  return Number(results[2]?.["usedSize"]) / MIB;
}
