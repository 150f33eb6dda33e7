// What each container image ships, assembled into a folder: the sources of the packages the
// image runs (no tests, scripts or the dashboard's app sources), and a production install of
// exactly their dependencies. deploy/Dockerfile runs this in its build stage, and
// test/e2e/images.test.ts runs it too, so the test checks what the image holds.
//
//   node deploy/assemble.ts <svc|sidecar> <out-dir>
//
// The svc image needs the dashboard built first (make dashboard: packages/dashboard/dist).
import { execFileSync } from "node:child_process";
import { cp, mkdir, readdir, rm, stat } from "node:fs/promises";
import { join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..");

export const IMAGE_TARGETS = {
  /** api, operator and dashboard: every package, and the dashboard's build. */
  svc: {
    workspace: "@svc/cli",
    packages: ["core", "kube-wire", "process", "kube", "api", "operator", "dashboard", "sidecar", "cli"],
  },
  /** The in-pod flag server: the svc command with only what `svc sidecar` loads. */
  sidecar: { workspace: "@svc/sidecar", packages: ["core", "kube-wire", "process", "sidecar", "cli"] },
} as const;
export type ImageTarget = keyof typeof IMAGE_TARGETS;

function npm(dir: string, args: string[]): string {
  return execFileSync("npm", args, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
}

export async function assembleImage(target: ImageTarget, out: string): Promise<void> {
  const { workspace, packages } = IMAGE_TARGETS[target];
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  // npm checks the lock file against every workspace's manifest: all manifests, few sources.
  for (const file of ["package.json", "package-lock.json"]) await cp(join(ROOT, file), join(out, file));
  for (const name of await readdir(join(ROOT, "packages")))
    await cp(join(ROOT, "packages", name, "package.json"), join(out, "packages", name, "package.json"));
  for (const name of packages)
    await cp(join(ROOT, "packages", name, "src"), join(out, "packages", name, "src"), { recursive: true });
  if (target === "svc") {
    const dist = join(ROOT, "packages/dashboard/dist");
    if (!(await stat(dist).catch(() => undefined)))
      throw new Error(`${dist} is missing: run make dashboard first`);
    await cp(dist, join(out, "packages/dashboard/dist"), { recursive: true });
  }
  npm(out, ["ci", "--omit=dev", `--workspace=${workspace}`, "--ignore-scripts", "--no-audit", "--no-fund"]);
  // npm links every workspace and may keep more than the target's tree: keep only that tree.
  const needed = new Set(
    npm(out, ["ls", "--omit=dev", `--workspace=${workspace}`, "--all", "--parseable"])
      .split("\n")
      .filter((line) => line !== "")
      .map((path) => relative(out, path)),
  );
  for (const name of packages) needed.add(`node_modules/@svc/${name}`);
  await pruneTo(join(out, "node_modules"), out, needed);
}

/** Removes every package folder under `dir` that `needed` (paths relative to `out`) does not list. */
async function pruneTo(dir: string, out: string, needed: ReadonlySet<string>): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.name.startsWith("@")) {
      await pruneTo(path, out, needed);
      if ((await readdir(path)).length === 0) await rm(path, { recursive: true });
    } else if (!needed.has(relative(out, path))) await rm(path, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const [target, out] = process.argv.slice(2);
  if ((target !== "svc" && target !== "sidecar") || out === undefined) {
    process.stderr.write("usage: node deploy/assemble.ts <svc|sidecar> <out-dir>\n");
    process.exit(2);
  }
  await assembleImage(target, resolve(out));
}
