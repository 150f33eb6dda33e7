// `svc users` as processes (node packages/cli/src/main.ts) against a real API server, as a
// platform engineer runs it: log in, create a user with a grant, add and remove grants, change
// the global role, and what is refused (a non-admin, "none" without a grant, an unknown user),
// each with its exit code; what the API then holds is read directly, not through the CLI.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ADMIN_PASSWORD, BACKENDS, TestApi, testConfig } from "../../api/test/support/harness.ts";

const MAIN = resolve(import.meta.dirname, "../src/main.ts");

let api: TestApi;
let home = "";
let removeDb: () => Promise<void> = () => Promise.resolve();
let adminToken = "";

beforeAll(async () => {
  const db = await (BACKENDS[0] ?? { open: () => Promise.reject(new Error("no backend")) }).open();
  removeDb = db.remove;
  api = await TestApi.start(testConfig(db.database));
  adminToken = await api.login("admin", ADMIN_PASSWORD);
  home = await mkdtemp(join(tmpdir(), "svc-cli-users-"));
});

afterAll(async () => {
  await api.close();
  await removeDb();
  await rm(home, { recursive: true, force: true });
});

/** `svc …` to its end (bounded); the token comes from `svc flags login`'s file unless given. */
async function svc(args: string[], stdin = "", env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { PATH: process.env["PATH"] ?? "", HOME: home, XDG_CONFIG_HOME: join(home, "config"), ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(stdin);
  const timeout = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const [code] = (await once(child, "exit")) as [number | null];
  clearTimeout(timeout);
  return { code, stdout, stderr };
}

interface StoredUser {
  username: string;
  role: string;
  grants: unknown[];
}

async function stored(username: string): Promise<StoredUser | undefined> {
  const reply = await api.call("GET", "/api/v1/users", { token: adminToken });
  return (reply.json as StoredUser[]).find((user) => user.username === username);
}

it("an admin creates a scoped user, adds and revokes grants, and sets its role", async () => {
  const login = await svc(
    ["flags", "login", "--server", api.url, "-u", "admin", "--password-stdin"],
    ADMIN_PASSWORD,
  );
  expect(login.code, login.stderr).toBe(0);

  const create = await svc(
    ["users", "create", "sam", "--role", "editor", "-c", "staging", "-n", "shop,shop-*", "--password-stdin"],
    "sam-password-1",
  );
  expect(create.code, create.stderr).toBe(0);
  expect(create.stdout).toContain("user sam: global role none");
  expect(await stored("sam")).toMatchObject({
    role: "none",
    grants: [{ role: "editor", clusters: ["staging"], namespaces: ["shop", "shop-*"] }],
  });

  const grant = await svc(["users", "grant", "sam", "--role", "viewer", "--cluster-label", "env=prod"]);
  expect(grant.code, grant.stderr).toBe(0);
  expect(grant.stdout).toBe("granted viewer@[env=prod]/* to sam\n");
  // The same grant again changes nothing.
  const again = await svc(["users", "grant", "sam", "--role", "viewer", "--cluster-label", "env=prod"]);
  expect(again.stdout).toBe("sam holds viewer@[env=prod]/* already\n");
  expect((await stored("sam"))?.grants).toHaveLength(2);

  const get = await svc(["users", "get", "sam"]);
  expect(get.stdout).toMatch(/^1 +editor +staging +\* +shop,shop-\*$/m);
  expect(get.stdout).toMatch(/^2 +viewer +\* +env=prod +\*$/m);
  const list = await svc(["users", "list", "-o", "json"]);
  expect((JSON.parse(list.stdout) as StoredUser[]).find((u) => u.username === "sam")?.grants).toHaveLength(2);

  // The grant's user, signed in, reads its own grants and may not grant itself more.
  const samToken = await api.login("sam", "sam-password-1");
  const me = await api.call("GET", "/api/v1/auth/me", { token: samToken });
  expect(me.json).toMatchObject({
    username: "sam",
    role: "none",
    grants: [{ role: "editor" }, { role: "viewer" }],
  });
  const self = await svc(["users", "grant", "sam", "--role", "admin", "-n", "shop"], "", {
    SVC_TOKEN: samToken,
  });
  expect(self.code).toBe(1);
  expect(self.stderr).toMatch(/^svc users grant: 403 /);
  expect((await stored("sam"))?.grants).toHaveLength(2);

  const revoke = await svc([
    "users",
    "revoke",
    "sam",
    "--role",
    "editor",
    "-c",
    "staging",
    "-n",
    "shop-*,shop",
  ]);
  expect(revoke.code, revoke.stderr).toBe(0);
  expect(await stored("sam")).toMatchObject({ role: "none", grants: [{ role: "viewer" }] });
  // The last grant of a user without a global role: the API refuses, nothing changes.
  const last = await svc(["users", "revoke", "sam", "--index", "1"]);
  expect(last.code).toBe(1);
  expect(last.stderr).toMatch(/^svc users revoke: 400 .*grant/);
  expect((await stored("sam"))?.grants).toHaveLength(1);
  const missing = await svc(["users", "revoke", "sam", "--role", "admin", "-n", "shop"]);
  expect(missing.code).toBe(3);

  const set = await svc(["users", "set", "sam", "--role", "viewer"]);
  expect(set.code, set.stderr).toBe(0);
  const all = await svc(["users", "revoke", "sam", "--all"]);
  expect(all.code, all.stderr).toBe(0);
  // A user without grants is SPEC.md's {username, role, createdAt}: no grants field at all.
  const sam = await stored("sam");
  expect(sam).toMatchObject({ username: "sam", role: "viewer" });
  expect(Object.keys(sam ?? {}).sort()).toEqual(["createdAt", "role", "username"]);

  expect((await svc(["users", "get", "nobody"])).code).toBe(3);
  const bad = await svc(["users", "grant", "sam", "--role", "viewer", "-n", "Shop_1"]);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("--namespace");
  const remove = await svc(["users", "delete", "sam"]);
  expect(remove.code, remove.stderr).toBe(0);
  expect(await stored("sam")).toBeUndefined();
});
