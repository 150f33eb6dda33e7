// SPEC.md's sidecar endpoints, served inside a real workload pod on the test node.
//
// How the test reaches the sidecar: from inside the pod. SPEC.md serves these endpoints "inside
// the workload pod", and the sidecar answers flag reads only to the pod's own containers (a peer
// off loopback, such as the kube-apiserver's pod proxy, gets 403). So the client runs where the
// workload runs: `node` (the demo application's runtime, already in its image) started in the app
// container by an exec through the kube-apiserver and the kubelet, fetching 127.0.0.1:<port>.
import { PassThrough } from "node:stream";
import { createInterface } from "node:readline";
import { Exec, type KubeConfig, type V1Status } from "@kubernetes/client-node";
import { expect } from "vitest";

/** A command in a pod's container: its stdout lines as they come, and its end. */
function execInPod(kc: KubeConfig, namespace: string, pod: string, command: string[]) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let errors = "";
  stderr.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  const lines = createInterface({ input: stdout })[Symbol.asyncIterator]();
  const done = new Promise<V1Status>((resolve, reject) => {
    new Exec(kc)
      .exec(namespace, pod, "app", command, stdout, stderr, null, false, (status) => {
        stdout.end();
        if (status.status === "Success") resolve(status);
        else reject(new Error(`${command.join(" ")} in ${pod}: ${JSON.stringify(status)} ${errors}`));
      })
      .catch(reject);
  });
  // Awaited by the caller once the output is read; a failure before that is not unhandled.
  done.catch(() => undefined);
  return { lines, done };
}

const GETS = `
const [port, ...paths] = process.argv.slice(1);
const answers = [];
for (const path of paths) {
  const r = await fetch("http://127.0.0.1:" + port + path);
  answers.push({ path, status: r.status, contentType: r.headers.get("content-type"), text: await r.text() });
}
console.log(JSON.stringify(answers));
`;

export interface SidecarAnswer {
  path: string;
  status: number;
  contentType: string | null;
  text: string;
}

/** GETs `paths` of the sidecar on `port`, from inside the pod. */
export async function sidecarGets(
  kc: KubeConfig,
  namespace: string,
  pod: string,
  port: number,
  paths: string[],
): Promise<Record<string, SidecarAnswer>> {
  const run = execInPod(kc, namespace, pod, [
    "node",
    "--input-type=module",
    "-e",
    GETS,
    String(port),
    ...paths,
  ]);
  const first = await run.lines.next();
  await run.done;
  const answers = JSON.parse(String(first.value)) as SidecarAnswer[];
  return Object.fromEntries(answers.map((a) => [a.path, a]));
}

// Prints {open} once the stream's head has come, then each event as {event, data}, and exits when
// an update of flag argv[2] has value argv[3] (or any, for "*") and disabled argv[4].
const STREAM = `
const [port, name, value, disabled] = process.argv.slice(1);
setTimeout(() => process.exit(3), 60000);
const r = await fetch("http://127.0.0.1:" + port + "/flags/stream");
console.log(JSON.stringify({ open: true, status: r.status, contentType: r.headers.get("content-type") }));
const decoder = new TextDecoder();
let buffer = "";
for await (const chunk of r.body) {
  buffer += decoder.decode(chunk, { stream: true });
  for (let end = buffer.indexOf("\\n\\n"); end >= 0; end = buffer.indexOf("\\n\\n")) {
    const lines = buffer.slice(0, end).split("\\n");
    buffer = buffer.slice(end + 2);
    // A block without data (the retry: preamble, a heartbeat comment) is no event.
    if (!lines.some((l) => l.startsWith("data:"))) continue;
    const event = lines.find((l) => l.startsWith("event:"))?.slice(6).trim() ?? "message";
    const data = lines.filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("\\n");
    console.log(JSON.stringify({ event, data }));
    const flag = JSON.parse(data);
    if (event === "update" && flag.name === name && (value === "*" || flag.value === value) && String(flag.disabled) === disabled)
      process.exit(0);
  }
}
`;

/**
 * Subscribes to the sidecar's stream from inside the pod, runs `change` once the subscription is
 * open, and returns the events received up to the wanted update of `name`.
 */
export async function streamAcross(
  kc: KubeConfig,
  target: { namespace: string; pod: string; port: number },
  wanted: { name: string; value: string; disabled: boolean },
  change: () => Promise<unknown>,
): Promise<{ event: string; data: unknown }[]> {
  const { namespace, pod, port } = target;
  const args = [String(port), wanted.name, wanted.value, String(wanted.disabled)];
  const run = execInPod(kc, namespace, pod, ["node", "--input-type=module", "-e", STREAM, ...args]);
  const open = await run.lines.next();
  const head = JSON.parse(String(open.value)) as { status: number; contentType: string };
  expect(head.status).toBe(200);
  expect(head.contentType).toMatch(/^text\/event-stream/);
  await change();
  const events: { event: string; data: unknown }[] = [];
  for (let line = await run.lines.next(); line.done !== true; line = await run.lines.next()) {
    const { event, data } = JSON.parse(line.value) as { event: string; data: string };
    events.push({ event, data: JSON.parse(data) });
  }
  await run.done;
  return events;
}
