import { describe, expect, it } from "vitest";
import { DEFAULT_SERVER, parseFlagsArguments } from "../src/commands/flags-arguments.ts";

const fields = (result: ReturnType<typeof parseFlagsArguments>) =>
  result.ok ? [] : result.errors.map((e) => e.field);

describe("svc flags arguments", () => {
  it("reads an import: the file, a sidecar delivery by default, the server and token from the environment", () => {
    const result = parseFlagsArguments(
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
      ok: true,
      value: {
        request: {
          action: "import",
          file: "flags.json",
          namespace: "shop",
          cluster: "local",
          delivery: { sidecar: { selector: { matchLabels: { app: "web", tier: "front" } } } },
          dryRun: true,
        },
        api: { server: DEFAULT_SERVER, token: "t0ken" },
      },
    });
  });

  it("lets --server and --token win over SVC_API_URL and SVC_TOKEN", () => {
    const result = parseFlagsArguments(
      ["export", "--namespace", "shop", "--cluster", "c", "--server", "http://127.0.0.1:9/", "--token", "x"],
      { SVC_API_URL: "http://elsewhere:1", SVC_TOKEN: "y" },
    );
    expect(result.ok && result.value.api).toEqual({ server: "http://127.0.0.1:9", token: "x" });
    expect(result.ok && result.value.request).toEqual({ action: "export", namespace: "shop", cluster: "c" });
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
    const envVar = parseFlagsArguments([...base, "--delivery", "envVar"], {});
    expect(envVar.ok && envVar.value.request).toMatchObject({
      delivery: { envVar: { selector: { matchLabels: { a: "b" } } } },
    });
    const configMap = parseFlagsArguments(
      [...base, "--delivery", "configMap", "--config-map", "flags", "--key", "k"],
      {},
    );
    expect(configMap.ok && configMap.value.request).toMatchObject({
      delivery: { configMap: { configMapName: "flags", key: "k", selector: { matchLabels: { a: "b" } } } },
    });
    expect(fields(parseFlagsArguments([...base, "--delivery", "configMap"], {}))).toEqual(["--config-map"]);
  });

  it("lists every problem of a bad command line, by option", () => {
    expect(
      fields(parseFlagsArguments(["import", "--selector", "app", "--delivery", "pigeon", "--bogus"], {})),
    ).toEqual(["--bogus", "--namespace", "--cluster", "--token", "--selector", "--delivery", "<file>"]);
    expect(
      fields(
        parseFlagsArguments(
          ["export", "out.json", "--selector", "a=b", "--namespace", "n", "--cluster", "c", "--token", "t"],
          {},
        ),
      ),
    ).toEqual(["--selector", "out.json"]);
    expect(fields(parseFlagsArguments(["sync"], { SVC_TOKEN: "t" }))).toContain("");
  });
});
