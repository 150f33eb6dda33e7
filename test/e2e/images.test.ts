// What the container images ship (deploy/Dockerfile), command by command: each image's contents
// are assembled by the same script its build stage runs (deploy/assemble.ts), and each command
// is run from them as the image's non-root user, with the files not writable, against the real
// control plane. The images themselves, built with buildah by make images, run on the local
// node: test/e2e/node-delivery.test.ts (sidecar) and node-harness.test.ts (svc).
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmod, chown, copyFile, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freeLoopbackPort, waitFor } from "@svc/kube";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { assembleImage } from "../../deploy/assemble.ts";
import { operatorScope } from "../../packages/operator/test/support/operator.ts";
import { testKubeConfig, testNamespace } from "../support/kube.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const BUN = join(ROOT, "node_modules/@oven/bun-linux-x64/bin/bun");
/** The images' user (deploy/Dockerfile). */
const UID = 65532;
const isRoot = process.getuid?.() === 0;
/** setpriv's arguments that switch to the images' user. */
const SETPRIV_IMAGE_USER = [`--reuid=${UID}`, `--regid=${UID}`, "--clear-groups"];

let work = "";
let svcImage = "";
let sidecarImage = "";
/** A kubeconfig the image's user may read (the harness writes its own for root only). */
let kubeconfig = "";
const children: ChildProcess[] = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "svc-images-"));
  await chmod(work, 0o755);
  svcImage = join(work, "svc");
  sidecarImage = join(work, "sidecar");
  await Promise.all([assembleImage("svc", svcImage), assembleImage("sidecar", sidecarImage)]);
  kubeconfig = join(work, "kubeconfig");
  await copyFile(inject("kubeconfigPath"), kubeconfig);
  if (isRoot) await chown(kubeconfig, UID, UID);
}, 300_000);

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await rm(work, { recursive: true, force: true });
});

/** Packages installed at the top of an image's node_modules. */
async function installed(image: string): Promise<string[]> {
  const top = await readdir(join(image, "node_modules"));
  const scoped = await Promise.all(
    top
      .filter((name) => name.startsWith("@"))
      .map(async (scope) => (await readdir(join(image, "node_modules", scope))).map((n) => `${scope}/${n}`)),
  );
  return [...top.filter((name) => !name.startsWith("@")), ...scoped.flat()];
}

/** setpriv's arguments running `svc <args>` from an image's contents as the image's user. */
function asImageUser(runtime: string, image: string, args: string[]): string[] {
  return [...SETPRIV_IMAGE_USER, runtime, join(image, "packages/cli/src/main.ts"), ...args];
}

/** Runs a command of an image as its user (setpriv), and waits until `url` answers 200. */
async function runAs(
  runtime: string,
  image: string,
  args: string[],
  env: Record<string, string>,
  url: string,
) {
  const child = spawn("setpriv", asImageUser(runtime, image, args), {
    env: { PATH: process.env["PATH"] ?? "", HOME: "/nonexistent", KUBECONFIG: kubeconfig, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`svc ${args.join(" ")} exited:\n${output}`);
      return (await fetch(url).catch(() => undefined))?.status;
    },
    (status) => status === 200,
    {
      what: `svc ${args.join(" ")} answering ${url}`,
      timeoutMs: 60_000,
      intervalMs: 200,
      describe: () => output,
    },
  );
  return child;
}

describe("image contents", () => {
  const DEV_ONLY = [
    "vitest",
    "vite",
    "typescript",
    "eslint",
    "prettier",
    "playwright-core",
    "react",
    "@oven/bun-linux-x64",
    "node",
  ];

  it("ship production dependencies only, and the sidecar image only what svc sidecar loads", async () => {
    const svc = await installed(svcImage);
    const sidecar = await installed(sidecarImage);
    for (const name of DEV_ONLY) {
      expect(svc, name).not.toContain(name);
      expect(sidecar, name).not.toContain(name);
    }
    expect(svc).toEqual(
      expect.arrayContaining(["fastify", "@kubernetes/client-node", "better-sqlite3", "@svc/api"]),
    );
    expect(sidecar).not.toContain("@kubernetes/client-node");
    expect(sidecar).not.toContain("@svc/api");
    expect(sidecar).toContain("@svc/sidecar");
    const sizeMb = (dir: string) =>
      Number(execFileSync("du", ["-sm", dir], { encoding: "utf8" }).split("\t")[0]);
    console.info(
      `image contents: svc ${sizeMb(svcImage)} MB, sidecar ${sizeMb(sidecarImage)} MB (without runtime)`,
    );
  });
});

describe.skipIf(!isRoot)("each command, run from its image as user 65532 (needs root to switch user)", () => {
  const kc = testKubeConfig();
  let apiUrl = "";

  it("svc api answers /healthz with its database on a writable volume", async () => {
    const data = join(work, "data");
    execFileSync("install", ["-d", "-o", String(UID), "-g", String(UID), data]);
    const port = await freeLoopbackPort();
    apiUrl = `http://127.0.0.1:${port}`;
    await runAs(
      process.execPath,
      svcImage,
      ["api"],
      {
        SVC_API_HOST: "127.0.0.1",
        SVC_API_PORT: String(port),
        SVC_METRICS_PORT: "0",
        SVC_DATABASE_PATH: join(data, "svc.sqlite"),
        SVC_ADMIN_PASSWORD: "image-test-password",
        SVC_LOG_LEVEL: "warn",
      },
      `${apiUrl}/healthz`,
    );
  });

  it("svc operator becomes ready", async () => {
    const ns = await testNamespace(kc, "img-op");
    const scope = await operatorScope(kc, "img-op", [ns]);
    const port = await freeLoopbackPort();
    await runAs(
      process.execPath,
      svcImage,
      ["operator"],
      {
        SVC_NAMESPACE: scope.systemNamespace,
        SVC_OPERATOR_LEADER_ELECTION: "false",
        SVC_OPERATOR_METRICS_HOST: "127.0.0.1",
        SVC_OPERATOR_METRICS_PORT: String(port),
        SVC_LOG_LEVEL: "warn",
      },
      `http://127.0.0.1:${port}/readyz`,
    );
  });

  it("svc dashboard serves the app", async () => {
    const port = await freeLoopbackPort();
    await runAs(
      process.execPath,
      svcImage,
      ["dashboard"],
      {
        SVC_DASHBOARD_HOST: "127.0.0.1",
        SVC_DASHBOARD_PORT: String(port),
        SVC_API_URL: apiUrl || "http://127.0.0.1:9",
        SVC_LOG_LEVEL: "warn",
      },
      `http://127.0.0.1:${port}/`,
    );
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toContain('<div id="root">');
  });

  it("svc sidecar, on Bun from the sidecar image, serves the namespace's flags", async () => {
    const ns = await testNamespace(kc, "img-sc");
    const port = await freeLoopbackPort();
    await runAs(
      BUN,
      sidecarImage,
      ["sidecar"],
      {
        POD_NAMESPACE: ns,
        SVC_SIDECAR_HOST: "127.0.0.1",
        SVC_SIDECAR_PORT: String(port),
        SVC_LOG_LEVEL: "warn",
      },
      `http://127.0.0.1:${port}/healthz`,
    );
    expect(await (await fetch(`http://127.0.0.1:${port}/flags`)).json()).toEqual([]);
  });

  it("svc --help runs from either image", () => {
    for (const [runtime, image] of [
      [process.execPath, svcImage],
      [BUN, sidecarImage],
    ] as const) {
      const help = execFileSync("setpriv", asImageUser(runtime, image, ["--help"]), { encoding: "utf8" });
      expect(help).toContain("usage: svc <command>");
    }
  });

  it("cannot write to its own files, as with a read-only root filesystem", () => {
    for (const target of [svcImage, join(svcImage, "packages/cli/src"), sidecarImage]) {
      const write = spawnSync("setpriv", [...SETPRIV_IMAGE_USER, "touch", join(target, "written")], {
        encoding: "utf8",
      });
      expect(write.status, target).not.toBe(0);
      expect(write.stderr).toContain("Permission denied");
    }
  });
});
