// `svc <command> --help` and docs/configuration.md: every setting a command's parser reads,
// with its default, from that parser itself.
import { validOrThrow } from "@svc/core/schema/field-errors";
import { readFile } from "node:fs/promises";
import { settingsOf } from "@svc/core/schema/settings";
import { parseOperatorConfig } from "@svc/operator";
import { describe, expect, it } from "vitest";
import { CONFIGURATION_DOC, configurationMarkdown } from "../scripts/configuration-doc.ts";
import { commands } from "../src/commands.ts";
import { commandHelp } from "../src/help.ts";

describe("settingsOf", () => {
  it("lists what a parser reads, in order, with defaults and rules", () => {
    const uses = settingsOf(parseOperatorConfig);
    expect(uses.find((u) => u.name === "SVC_OPERATOR_CONCURRENCY")).toEqual({
      name: "SVC_OPERATOR_CONCURRENCY",
      fallback: "16",
      rule: "an integer between 1 and 1024",
    });
    expect(uses.find((u) => u.name === "SVC_OPERATOR_RESYNC")?.fallback).toBe("10m");
    expect(uses.map((u) => u.name)).toContain("KUBECONFIG");
  });

  it("records nothing when a parser reads a real environment", () => {
    expect(validOrThrow(parseOperatorConfig({ SVC_OPERATOR_CONCURRENCY: "3" })).concurrency).toBe(3);
    expect(settingsOf(() => undefined)).toEqual([]);
  });
});

describe("commandHelp", () => {
  it("shows each variable with its default, and never a secret's", () => {
    const text = commandHelp("api", "run the API", [
      { name: "SVC_API_PORT", fallback: "8090", rule: "a port number between 0 and 65535" },
      { name: "SVC_ADMIN_PASSWORD", fallback: "", rule: "text" },
      { name: "SVC_DATABASE_URL", fallback: "postgres://u:p@h/db", rule: "text" },
    ]);
    expect(text).toContain("  SVC_API_PORT        8090      a port number between 0 and 65535");
    expect(text).toContain("  SVC_ADMIN_PASSWORD  (none)    text");
    expect(text).toContain("  SVC_DATABASE_URL    (secret)  text");
    expect(text).not.toContain("u:p@h");
  });

  it("covers every command, each with the settings its process reads", async () => {
    const names = async (command: string) =>
      (await (commands[command]?.settings() ?? Promise.resolve({ uses: [] }))).uses.map((u) => u.name);
    expect(Object.keys(commands).sort()).toEqual(
      ["api", "dashboard", "dev", "flags", "operator", "reset-admin-password", "sidecar", "users"].sort(),
    );
    expect(await names("flags")).toEqual(["SVC_API_URL", "SVC_TOKEN", "XDG_CONFIG_HOME"]);
    expect(await names("users")).toEqual(["SVC_API_URL", "SVC_TOKEN", "XDG_CONFIG_HOME"]);
    expect(await names("api")).toEqual(
      expect.arrayContaining(["SVC_API_PORT", "SVC_DATABASE_URL", "SVC_ADMIN_PASSWORD"]),
    );
    expect(await names("sidecar")).toEqual(expect.arrayContaining(["POD_NAMESPACE", "SVC_SIDECAR_PORT"]));
    expect(await names("dashboard")).toEqual(expect.arrayContaining(["SVC_API_URL", "SVC_DASHBOARD_PORT"]));
    expect(await names("dev")).toEqual([
      "SVC_DEV_DIR",
      "SVC_DEV_CLUSTERS",
      "SVC_DEV_KUBECONFIG",
      "SVC_DEV_NODE",
    ]);
    expect(await names("reset-admin-password")).toEqual([
      "SVC_DATABASE_URL",
      "SVC_DATABASE_PATH",
      "SVC_ADMIN_PASSWORD",
    ]);
  });
});

it("docs/configuration.md is what `make docs` generates now", async () => {
  expect(await readFile(CONFIGURATION_DOC, "utf8")).toBe(await configurationMarkdown());
});
