// A full garbage collection in another Node process through its inspector (the process started
// with --inspect=127.0.0.1:<port>). Memory taken after it counts what the process holds, not the
// garbage V8 has yet to collect: under load V8 grows its heap by hundreds of MB and gives it back
// only when its memory reducer runs, some seconds to never after the load stops.

/** NODE_OPTIONS for a process whose heap `collectGarbage` may collect. */
export function inspectorNodeOptions(port: number): string {
  return `${process.env["NODE_OPTIONS"] ?? ""} --inspect=127.0.0.1:${port}`.trim();
}

/** Two full collections (the second frees what the first's finalizers released); bounded. */
export async function collectGarbage(port: number): Promise<void> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    webSocketDebuggerUrl?: string;
  }[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (url === undefined) throw new Error(`no inspector target on port ${port}`);
  const socket = new WebSocket(url);
  try {
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener("open", () => {
        resolve();
      });
      socket.addEventListener("error", () => {
        reject(new Error(`inspector ${url} refused`));
      });
    });
    for (const id of [1, 2]) {
      const answered = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(new Error("no answer to HeapProfiler.collectGarbage in 60 s"));
        }, 60_000);
        socket.addEventListener("message", function onMessage(event: MessageEvent) {
          if ((JSON.parse(String(event.data)) as { id?: number }).id !== id) return;
          clearTimeout(timer);
          socket.removeEventListener("message", onMessage);
          resolve();
        });
      });
      socket.send(JSON.stringify({ id, method: "HeapProfiler.collectGarbage" }));
      await answered;
    }
  } finally {
    socket.close();
  }
}
