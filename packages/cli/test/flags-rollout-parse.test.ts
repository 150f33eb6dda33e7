// The plan verbs' command lines (`svc flags rollout <verb>`, `svc flags promote`) read into
// requests, and the --wave syntax: every problem named by its option (the shell exits 2 on any).
import { describe, expect, it } from "vitest";
import { parseVerbCommand } from "../src/flags/parse.ts";
import { DEFAULT_WATCH_INTERVAL_MS } from "../src/flags/rollout-parse.ts";
import { rolloutUsage } from "../src/flags/verbs.ts";
import { parseWave, waveText } from "../src/flags/waves.ts";

const requestOf = (args: string[]) => {
  const parsed = parseVerbCommand(args);
  if (parsed.kind !== "run") throw new Error(`not run: ${JSON.stringify(parsed)}`);
  return parsed.request;
};
const errorsOf = (args: string[]) => {
  const parsed = parseVerbCommand(args);
  return parsed.kind === "usage" ? parsed.errors.map((e) => `${e.field}: ${e.message}`) : [];
};

describe("the --wave syntax", () => {
  it("reads cluster ids or labels, then the bake in seconds (optional)", () => {
    expect(parseWave("local:60")).toEqual({ ok: true, wave: { clusters: ["local"], bakeSeconds: 60 } });
    expect(parseWave("eu-1,eu-2:0")).toEqual({
      ok: true,
      wave: { clusters: ["eu-1", "eu-2"], bakeSeconds: 0 },
    });
    expect(parseWave("region=eu:300")).toEqual({
      ok: true,
      wave: { clusterSelector: { matchLabels: { region: "eu" } }, bakeSeconds: 300 },
    });
    expect(parseWave("svc.io/tier=prod,region=eu")).toEqual({
      ok: true,
      wave: { clusterSelector: { matchLabels: { "svc.io/tier": "prod", region: "eu" } } },
    });
    expect(parseWave("staging")).toEqual({ ok: true, wave: { clusters: ["staging"] } });
    expect(parseWave("local:86400")).toMatchObject({ ok: true, wave: { bakeSeconds: 86400 } });
  });

  it("reads a last part ending in % as the share of workloads changed first", () => {
    expect(parseWave("prod:300:10%")).toEqual({
      ok: true,
      wave: { clusters: ["prod"], bakeSeconds: 300, workloadPercent: 10 },
    });
    expect(parseWave("region=eu:25%")).toEqual({
      ok: true,
      wave: { clusterSelector: { matchLabels: { region: "eu" } }, workloadPercent: 25 },
    });
  });

  it("writes a wave back as it reads it", () => {
    for (const text of [
      "local:60",
      "eu-1,eu-2:0",
      "region=eu,tier=prod:300",
      "staging",
      "prod:300:10%",
      "prod:5%",
    ]) {
      const parsed = parseWave(text);
      expect(parsed.ok && waveText(parsed.wave)).toBe(text);
    }
  });

  it("names what is wrong with a bad wave", () => {
    const why = (text: string) => {
      const parsed = parseWave(text);
      return parsed.ok ? "accepted" : parsed.message;
    };
    expect(why("region=eu:5m")).toBe(
      '"region=eu:5m" has bake "5m": it must be whole seconds from 0 to 86400',
    );
    expect(why("local:86401")).toContain("from 0 to 86400");
    expect(why("local:-1")).toContain('has bake "-1"');
    expect(why("local:")).toBe("\"local:\" has nothing after ':' (the bake, in seconds)");
    expect(why(":60")).toBe('":60" names no cluster');
    expect(why("")).toBe('"" names no cluster');
    expect(why("eu-1,region=eu:60")).toContain("names clusters both by id and by labels");
    expect(why("EU_1:60")).toBe('"EU_1:60" has "EU_1", which is not a cluster id (a DNS-1123 label)');
    expect(why("a,,b")).toContain("has an empty cluster id");
    expect(why("a,a:5")).toContain("names cluster a twice");
    expect(why("=eu")).toContain('has "", which is not a label key');
    expect(why("region=e u")).toContain('has "e u", which is not a label value');
    expect(why("region=eu,region=us")).toContain("names label region twice");
    expect(why("prod:300:0%")).toBe(
      '"prod:300:0%" has workload percent "0%": it must be a whole percent from 1 to 99',
    );
    expect(why("prod:100%")).toContain("from 1 to 99");
    expect(why("prod:x%")).toContain('has workload percent "x%"');
    expect(why("10%")).toBe('"10%" names no cluster before its percent');
  });
});

describe("rollout create", () => {
  it("builds the plan from options: the value, the state, the waves in order, the start and the name", () => {
    const request = requestOf([
      "rollout",
      "create",
      "shop/checkout",
      "--value",
      "true",
      "--enabled=false",
      "--wave",
      "local:60",
      "--wave",
      "region=eu:300",
      "--start",
      "2026-12-01T09:00:00Z",
      "--name",
      "checkout-eu",
    ]);
    expect(request).toEqual({
      verb: "rollout create",
      source: {
        kind: "options",
        body: {
          name: "checkout-eu",
          flag: { namespace: "shop", name: "checkout" },
          change: { defaultValue: "true", enabled: false },
          waves: [
            { clusters: ["local"], bakeSeconds: 60 },
            { clusterSelector: { matchLabels: { region: "eu" } }, bakeSeconds: 300 },
          ],
          startAt: "2026-12-01T09:00:00Z",
        },
      },
    });
    expect(
      requestOf(["rollout", "create", "checkout", "-n", "shop", "--enabled", "true", "--wave", "a"]),
    ).toEqual({
      verb: "rollout create",
      source: {
        kind: "options",
        body: {
          flag: { namespace: "shop", name: "checkout" },
          change: { enabled: true },
          waves: [{ clusters: ["a"] }],
        },
      },
    });
  });

  it("reads -f FILE (or '-'), which says everything else", () => {
    expect(requestOf(["rollout", "create", "-f", "-"])).toEqual({
      verb: "rollout create",
      source: { kind: "file", file: "-" },
    });
    expect(errorsOf(["rollout", "create", "-f", "p.yaml", "shop/a", "--wave", "x", "--value", "1"])).toEqual([
      "shop/a: is not taken with -f: the file names the flag",
      "--value: is not taken with -f: the file says it",
      "--wave: is not taken with -f: the file says it",
    ]);
  });

  it("names every usage error by its option", () => {
    expect(errorsOf(["rollout", "create", "shop/a"])).toEqual([
      "--value: or --enabled is required (or -f FILE): the change to roll out",
      "--wave: is required: one per wave, in order (IDS[:SECONDS][:PERCENT%] or KEY=VALUE[,KEY=VALUE][:SECONDS][:PERCENT%])",
    ]);
    expect(
      errorsOf([
        "rollout",
        "create",
        "a",
        "--value",
        "1",
        "--enabled",
        "yes",
        "--wave",
        "x:1m",
        "--start",
        "2026-13-01T00:00:00Z",
        "--name",
        "Big",
      ]),
    ).toEqual([
      "--enabled: must be one of: true, false",
      'NAMESPACE/NAME: must name a namespace and a flag, got "a"',
      '--wave: "x:1m" has bake "1m": it must be whole seconds from 0 to 86400',
      '--start: must be an RFC 3339 time such as "2026-12-01T09:00:00Z"',
      "--name: must be a DNS-1123 label (lowercase letters, digits and '-', at most 63)",
    ]);
  });
});

describe("the other plan verbs", () => {
  it("reads list's filters, the NAME of get, watch and the actions, and approve's comment", () => {
    expect(requestOf(["rollout", "list", "--flag", "shop/a", "--phase", "Progressing"])).toEqual({
      verb: "rollout list",
      flag: "shop/a",
      phase: "Progressing",
    });
    expect(requestOf(["rollout", "list"])).toEqual({ verb: "rollout list" });
    for (const verb of ["get", "pause", "resume", "abort", "skip-bake", "delete"])
      expect(requestOf(["rollout", verb, "plan-1"])).toEqual({ verb: `rollout ${verb}`, name: "plan-1" });
    expect(requestOf(["rollout", "approve", "plan-1", "--comment", "checked with ops"])).toEqual({
      verb: "rollout approve",
      name: "plan-1",
      comment: "checked with ops",
    });
    expect(requestOf(["rollout", "reject", "plan-1"])).toEqual({ verb: "rollout reject", name: "plan-1" });
    expect(requestOf(["rollout", "watch", "plan-1"])).toEqual({
      verb: "rollout watch",
      name: "plan-1",
      intervalMs: DEFAULT_WATCH_INTERVAL_MS,
    });
    expect(requestOf(["rollout", "watch", "plan-1", "--interval", "0.5"])).toMatchObject({ intervalMs: 500 });
  });

  it("reads promote's flag, source cluster and waves", () => {
    expect(
      requestOf(["promote", "shop/a", "--from", "staging", "--wave", "eu-1:60", "--wave", "region=us"]),
    ).toEqual({
      verb: "promote",
      flag: { namespace: "shop", name: "a" },
      from: "staging",
      body: {
        waves: [
          { clusters: ["eu-1"], bakeSeconds: 60 },
          { clusterSelector: { matchLabels: { region: "us" } } },
        ],
      },
    });
  });

  it("names every usage error by its option", () => {
    expect(errorsOf(["rollout", "get"])).toEqual(["NAME: is required: the plan's name"]);
    expect(errorsOf(["rollout", "pause", "Plan_1"])).toEqual([
      "NAME: must be a DNS-1123 label (lowercase letters, digits and '-', at most 63), got \"Plan_1\"",
    ]);
    expect(errorsOf(["rollout", "abort", "a", "b"])).toEqual(["b: is one argument too many"]);
    expect(errorsOf(["rollout", "list", "--flag", "a", "--phase", "Done"])).toEqual([
      "--phase: must be one of: Pending, AwaitingApproval, Scheduled, Progressing, Paused, RollingBack, Succeeded, RolledBack, Rejected, Failed",
      '--flag: must be NAMESPACE/NAME, got "a"',
    ]);
    expect(errorsOf(["rollout", "watch", "a", "--interval", "0"])).toEqual([
      "--interval: must be seconds from 0.1 to 300",
    ]);
    expect(errorsOf(["rollout", "approve", "a", "--wave=x"])).toEqual([
      "--wave: is not an option of this verb",
    ]);
    expect(errorsOf(["promote", "shop/a", "--wave", "x"])).toEqual([
      "--from: is required: the source cluster",
    ]);
    expect(errorsOf(["promote", "shop/a", "--from", "Staging"])).toEqual([
      "--from: must be a DNS-1123 label (lowercase letters, digits and '-', at most 63) (a cluster id)",
      "--wave: is required: one per wave, in order (IDS[:SECONDS][:PERCENT%] or KEY=VALUE[,KEY=VALUE][:SECONDS][:PERCENT%])",
    ]);
  });

  it("answers `rollout` alone with its verbs (exit 2), --help with the same (exit 0), and refuses an unknown one", () => {
    expect(parseVerbCommand(["rollout", "--help"])).toEqual({ kind: "help", text: rolloutUsage() });
    expect(parseVerbCommand(["rollout"])).toMatchObject({ kind: "usage", group: "rollout" });
    expect(parseVerbCommand(["rollout", "frob"])).toEqual({
      kind: "usage",
      group: "rollout",
      errors: [{ field: "", message: 'unknown verb "rollout frob"' }],
    });
    for (const verb of [
      "create",
      "list",
      "get",
      "watch",
      "pause",
      "resume",
      "abort",
      "skip-bake",
      "approve",
      "reject",
      "delete",
    ])
      expect(rolloutUsage()).toContain(`  ${verb} `);
  });
});
