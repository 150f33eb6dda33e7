// Where svc flags sends requests and with which token; the token file login writes; exit codes.
import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  exitCodeOf,
  parseCliSettings,
  parseSavedLogin,
  resolveConnection,
  tokenPath,
  type CliSettings,
} from "../src/flags/connection.ts";
import { readSavedLogin, saveLogin } from "../src/flags/store.ts";

const settings = (more: Partial<CliSettings> = {}): CliSettings => ({
  server: "",
  token: "",
  configHome: "/c",
  ...more,
});
const saved = {
  server: "https://svc.example",
  token: "saved",
  username: "ed",
  expiresAt: "2026-01-02T00:00:00.000Z",
};

describe("settings", () => {
  it("keeps the token under XDG_CONFIG_HOME, else ~/.config (a relative XDG_CONFIG_HOME is ignored)", () => {
    const path = (env: Record<string, string>) => {
      const read = parseCliSettings(env);
      return read.ok ? tokenPath(read.value) : "";
    };
    expect(path({ HOME: "/home/ed", XDG_CONFIG_HOME: "/xdg" })).toBe("/xdg/svc/token");
    expect(path({ HOME: "/home/ed" })).toBe("/home/ed/.config/svc/token");
    expect(path({ HOME: "/home/ed", XDG_CONFIG_HOME: "xdg" })).toBe("/home/ed/.config/svc/token");
    expect(parseCliSettings({ SVC_API_URL: "not a url" })).toMatchObject({
      ok: false,
      errors: [{ field: "SVC_API_URL" }],
    });
  });
});

describe("resolveConnection", () => {
  it("lets options win over SVC_API_URL/SVC_TOKEN, which win over the login", () => {
    expect(
      resolveConnection(
        { server: "http://a/", token: "o" },
        settings({ server: "http://b", token: "e" }),
        saved,
      ),
    ).toEqual({
      ok: true,
      value: { server: "http://a", token: "o" },
    });
    expect(resolveConnection({}, settings({ server: "http://b", token: "e" }), saved)).toEqual({
      ok: true,
      value: { server: "http://b", token: "e" },
    });
    expect(resolveConnection({}, settings(), saved)).toEqual({
      ok: true,
      value: { server: saved.server, token: "saved" },
    });
    expect(resolveConnection({}, settings(), undefined)).toMatchObject({
      ok: false,
      errors: [{ field: "--token", message: expect.stringContaining("http://127.0.0.1:8090") as string }],
    });
  });

  it("never sends the login's token to another server", () => {
    expect(resolveConnection({ server: "https://evil.example" }, settings(), saved)).toMatchObject({
      ok: false,
    });
    expect(resolveConnection({}, settings({ server: "https://evil.example" }), saved)).toMatchObject({
      ok: false,
    });
    expect(resolveConnection({ server: "https://svc.example/" }, settings(), saved)).toMatchObject({
      ok: true,
      value: { token: "saved" },
    });
  });
});

it("maps refusals to exit codes: 404 → 3, 409 → 4, others → 1", () => {
  expect([400, 401, 403, 404, 409, 422, 500, 502].map(exitCodeOf)).toEqual([1, 1, 1, 3, 4, 1, 1, 1]);
});

describe("the token file", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("is written with mode 0600 in a 0700 folder, replaced whole, and read back", async () => {
    const dir = await mkdtemp(join(tmpdir(), "svc-token-"));
    dirs.push(dir);
    const path = tokenPath({ configHome: join(dir, "config") });
    await saveLogin(path, saved);
    await saveLogin(path, { ...saved, token: "newer" });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, "config", "svc"))).mode & 0o777).toBe(0o700);
    expect(await readdir(join(dir, "config", "svc"))).toEqual(["token"]);
    expect(await readSavedLogin(path)).toEqual({ ...saved, token: "newer" });
    expect(await readSavedLogin(join(dir, "none"))).toBeUndefined();
    await writeFile(path, "garbage");
    expect(await readSavedLogin(path)).toBeUndefined();
    expect(parseSavedLogin(JSON.stringify({ server: "x" }))).toBeUndefined();
  });
});
