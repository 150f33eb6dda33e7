// `svc flags <verb>` command lines read into requests: options, defaults, and every usage error
// named by its option (the shell turns any into exit 2).
import { describe, expect, it } from "vitest";
import { parseLabels, parseVerbCommand } from "../src/flags/parse.ts";
import { flagsUsage, rolloutUsage, VERBS, verbHelp } from "../src/flags/verbs.ts";

const errorsOf = (args: string[]) => {
  const parsed = parseVerbCommand(args);
  return parsed.kind === "usage" ? parsed.errors.map((e) => e.field) : [];
};

describe("parseVerbCommand", () => {
  it("reads NAMESPACE/NAME, the cluster (local by default), the output and the connection options", () => {
    expect(
      parseVerbCommand(["get", "shop/checkout", "-o", "yaml", "--server", "http://h:1", "--token=t"]),
    ).toEqual({
      kind: "run",
      request: { verb: "get", flag: { cluster: "local", namespace: "shop", name: "checkout" } },
      output: "yaml",
      connection: { server: "http://h:1", token: "t" },
    });
    const named = parseVerbCommand(["delete", "checkout", "-n", "shop", "--cluster=eu"]);
    expect(named.kind === "run" && named.request).toEqual({
      verb: "delete",
      flag: { cluster: "eu", namespace: "shop", name: "checkout" },
    });
  });

  it("reads create's definition, enabled unless --disabled", () => {
    const parsed = parseVerbCommand([
      "create",
      "shop/limit",
      "--type",
      "integer",
      "--value",
      "10",
      "--delivery",
      "configMap",
      "--config-map",
      "shop-flags",
      "--key",
      "limit",
      "--selector",
      "app=web,tier=front",
      "--disabled",
      "--dry-run",
    ]);
    expect(parsed.kind === "run" && parsed.request).toEqual({
      verb: "create",
      flag: { cluster: "local", namespace: "shop", name: "limit" },
      definition: {
        type: "integer",
        value: "10",
        delivery: "configMap",
        configMap: "shop-flags",
        key: "limit",
        selector: { app: "web", tier: "front" },
      },
      enabled: false,
      dryRun: true,
    });
  });

  it("reads toggle's --on/--off, apply's file, list's filters and completion's shell", () => {
    const on = parseVerbCommand(["toggle", "shop/a", "--on"]);
    expect(on.kind === "run" && on.request).toMatchObject({ verb: "toggle", enabled: true });
    const flip = parseVerbCommand(["toggle", "shop/a"]);
    expect(flip.kind === "run" && "enabled" in flip.request).toBe(false);
    const apply = parseVerbCommand(["apply", "-f", "-", "-c", "eu", "--dry-run", "-o", "json"]);
    expect(apply.kind === "run" && apply).toMatchObject({
      request: { verb: "apply", file: "-", cluster: "eu", dryRun: true },
      output: "json",
    });
    const list = parseVerbCommand(["list", "-n", "shop", "--prefix", "new-"]);
    expect(list.kind === "run" && list.request).toEqual({ verb: "list", namespace: "shop", prefix: "new-" });
    const zsh = parseVerbCommand(["completion", "zsh"]);
    expect(zsh.kind === "run" && zsh.request).toEqual({ verb: "completion", shell: "zsh" });
  });

  it("names every usage error by its option", () => {
    expect(errorsOf(["get"])).toEqual(["NAMESPACE/NAME"]);
    expect(errorsOf(["get", "checkout"])).toEqual(["NAMESPACE/NAME"]);
    expect(errorsOf(["get", "a/b/c"])).toEqual(["NAMESPACE/NAME"]);
    expect(errorsOf(["get", "shop/a", "-n", "other"])).toEqual(["--namespace"]);
    expect(errorsOf(["get", "shop/a", "extra"])).toEqual(["extra"]);
    expect(errorsOf(["get", "shop/a", "-o", "xml", "--bogus"])).toEqual(["--output", "--bogus"]);
    expect(errorsOf(["create", "shop/a", "--type", "decimal"])).toEqual(["--type", "--value", "--selector"]);
    expect(errorsOf(["create", "shop/a", "--type", "boolean", "--value", "x", "--selector", "app"])).toEqual([
      "--selector",
    ]);
    expect(errorsOf(["set", "shop/a"])).toEqual([""]);
    expect(errorsOf(["set", "shop/a", "--port", "http"])).toEqual(["--port", ""]);
    expect(errorsOf(["toggle", "shop/a", "--on", "--off"])).toEqual(["--on"]);
    expect(errorsOf(["toggle", "shop/a", "--on=yes"])).toEqual(["--on"]);
    expect(errorsOf(["apply"])).toEqual(["--filename"]);
    expect(errorsOf(["apply", "-f"])).toEqual(["--filename"]);
    expect(errorsOf(["completion", "fish"])).toEqual(["SHELL"]);
    expect(errorsOf(["frobnicate"])).toEqual([""]);
  });

  it("answers --help on every verb with its options and the exit codes", () => {
    for (const verb of Object.keys(VERBS) as (keyof typeof VERBS)[]) {
      // `rollout create` is two words on the command line.
      const parsed = parseVerbCommand([...verb.split(" "), "shop/a", "--help"]);
      expect(parsed).toEqual({ kind: "help", text: verbHelp(verb) });
      expect(verbHelp(verb)).toContain(`usage: svc flags ${verb}`);
      expect(verbHelp(verb)).toContain("exit codes: 0 done, 1 error, 2 bad usage, 3 not found, 4 conflict");
      for (const option of VERBS[verb].options) expect(verbHelp(verb)).toContain(option.name);
      const [group, word] = verb.split(" ");
      expect(flagsUsage()).toContain(`  ${group ?? verb} `);
      if (word !== undefined) expect(rolloutUsage()).toContain(`  ${word} `);
    }
  });
});

it("parseLabels reads k=v pairs and refuses a pair without its '=' or key", () => {
  expect(parseLabels("app=web,tier=")).toEqual({ app: "web", tier: "" });
  expect(parseLabels("app")).toBeUndefined();
  expect(parseLabels("=web")).toBeUndefined();
});
