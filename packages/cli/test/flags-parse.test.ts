// `svc flags <verb>` command lines read into requests: options, defaults, and every usage error
// named by its option (the shell turns any into exit 2).
import { describe, expect, it } from "vitest";
import { DEFAULT_SERVER } from "../src/flags/connection.ts";
import { FLAGD_USAGE } from "../src/flags/flagd-verbs.ts";
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

// import and export, the verbs of the first version (moved from flags-arguments.test.ts, whose
// parser this one replaced: the same command lines, the same requests, connections and errors).
describe("parseVerbCommand: import and export", () => {
  const fields = (parsed: ReturnType<typeof parseVerbCommand>) =>
    parsed.kind === "usage" || parsed.kind === "flagd usage" ? parsed.errors.map((e) => e.field) : [];

  it("reads an import: the file, a sidecar delivery by default, the server and token from the environment", () => {
    const result = parseVerbCommand(
      [
        "import",
        "flags.json",
        "--namespace",
        "shop",
        "--cluster",
        "local",
        "--selector",
        "app=web,tier=front",
        "--dry-run",
      ],
      { SVC_TOKEN: "t0ken" },
    );
    expect(result).toEqual({
      kind: "flagd run",
      request: {
        verb: "import",
        file: "flags.json",
        namespace: "shop",
        cluster: "local",
        delivery: { sidecar: { selector: { matchLabels: { app: "web", tier: "front" } } } },
        dryRun: true,
      },
      connection: { server: DEFAULT_SERVER, token: "t0ken" },
    });
  });

  it("lets --server and --token win over SVC_API_URL and SVC_TOKEN", () => {
    const result = parseVerbCommand(
      ["export", "--namespace", "shop", "--cluster", "c", "--server", "http://127.0.0.1:9/", "--token", "x"],
      { SVC_API_URL: "http://elsewhere:1", SVC_TOKEN: "y" },
    );
    expect(result.kind === "flagd run" && result.connection).toEqual({
      server: "http://127.0.0.1:9",
      token: "x",
    });
    expect(result.kind === "flagd run" && result.request).toEqual({
      verb: "export",
      namespace: "shop",
      cluster: "c",
    });
  });

  it("builds envVar and configMap deliveries", () => {
    const base = [
      "import",
      "f.json",
      "--namespace",
      "n",
      "--cluster",
      "c",
      "--selector",
      "a=b",
      "--token",
      "t",
    ];
    const envVar = parseVerbCommand([...base, "--delivery", "envVar"], {});
    expect(envVar.kind === "flagd run" && envVar.request).toMatchObject({
      delivery: { envVar: { selector: { matchLabels: { a: "b" } } } },
    });
    const configMap = parseVerbCommand(
      [...base, "--delivery", "configMap", "--config-map", "flags", "--key", "k"],
      {},
    );
    expect(configMap.kind === "flagd run" && configMap.request).toMatchObject({
      delivery: { configMap: { configMapName: "flags", key: "k", selector: { matchLabels: { a: "b" } } } },
    });
    expect(fields(parseVerbCommand([...base, "--delivery", "configMap"], {}))).toEqual(["--config-map"]);
  });

  it("lists every problem of a bad command line, by option", () => {
    expect(
      fields(parseVerbCommand(["import", "--selector", "app", "--delivery", "pigeon", "--bogus"], {})),
    ).toEqual(["--bogus", "--namespace", "--cluster", "--token", "--selector", "--delivery", "<file>"]);
    expect(
      fields(
        parseVerbCommand(
          ["export", "out.json", "--selector", "a=b", "--namespace", "n", "--cluster", "c", "--token", "t"],
          {},
        ),
      ),
    ).toEqual(["--selector", "out.json"]);
    expect(fields(parseVerbCommand(["sync"], { SVC_TOKEN: "t" }))).toContain("");
  });

  it("keeps the first version's syntax: --name value only, and its own usage text for --help", () => {
    const where = ["--namespace", "n", "--cluster", "c", "--token", "t"];
    const errors = (args: string[]) => {
      const parsed = parseVerbCommand(args, {});
      return parsed.kind === "flagd usage" ? parsed.errors : [];
    };
    expect(errors(["export", ...where, "-n", "x"])).toEqual([
      { field: "-n", message: "export takes no file: it writes to stdout" },
    ]);
    expect(errors(["export", ...where, "--namespace=x"])).toEqual([
      { field: "--namespace=x", message: "is not an option of this command" },
    ]);
    expect(errors(["export", ...where, "--dry-run"])).toEqual([
      { field: "--dry-run", message: "is not an option of this command" },
    ]);
    expect(errors(["export", ...where, "--override-reason", "why", "--cluster"])).toEqual([
      { field: "--cluster", message: "is not an option of this command" },
      { field: "--override-reason", message: "is an option of import only" },
    ]);
    expect(parseVerbCommand(["import", "f.json", "-h"])).toEqual({ kind: "help", text: FLAGD_USAGE });
    expect(parseVerbCommand(["export", "--help"])).toEqual({ kind: "help", text: FLAGD_USAGE });
  });
});
