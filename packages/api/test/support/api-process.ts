// `svc api` as a real process against the shared test control plane, to be stopped and started
// again on the same database (a restart as in production), its log kept whole.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { resolve } from "node:path";
import { inject } from "vitest";

const MAIN = resolve(import.meta.dirname, "../../../cli/src/main.ts");

export class ApiProcess {
  /** Every line every run of the process wrote, stdout and stderr. */
  logs = "";
  url = "";
  #child: ChildProcessWithoutNullStreams | undefined;
  readonly #env: Record<string, string>;

  constructor(env: Record<string, string>) {
    this.#env = env;
  }

  async start(): Promise<void> {
    const from = this.logs.length;
    const child = spawn(process.execPath, [MAIN, "api"], {
      env: {
        PATH: process.env["PATH"] ?? "",
        KUBECONFIG: inject("kubeconfigPath"),
        SVC_API_HOST: "127.0.0.1",
        SVC_API_PORT: "0",
        SVC_METRICS_PORT: "0",
        ...this.#env,
      },
    });
    this.#child = child;
    child.stdout.on("data", (d: Buffer) => (this.logs += d.toString()));
    child.stderr.on("data", (d: Buffer) => (this.logs += d.toString()));
    this.url = await new Promise<string>((resolveUrl, reject) => {
      const timer = setTimeout(() => {
        clearInterval(poll);
        reject(new Error(`svc api did not start: ${this.logs.slice(from)}`));
      }, 60_000);
      const poll = setInterval(() => {
        const match = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(this.logs.slice(from));
        if (match?.[1] !== undefined) {
          clearInterval(poll);
          clearTimeout(timer);
          resolveUrl(match[1]);
        }
      }, 50);
    });
  }

  /** SIGTERM, as Kubernetes stops a pod, and waits for the exit. */
  async stop(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (child === undefined || child.exitCode !== null) return;
    const exited = new Promise((done) => child.once("exit", done));
    child.kill("SIGTERM");
    await exited;
  }
}
