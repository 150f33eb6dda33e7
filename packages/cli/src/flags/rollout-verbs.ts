// The verbs of FlagRollout plans (issue 23, docs/cli.md "Rollouts"): `svc flags rollout <verb>`
// and `svc flags promote`. Part of the one verb table (verbs.ts spreads them in), so the parser,
// --help and the completion scripts read them as they read the others.
import { ROLLOUT_PHASES } from "@svc/core";
import { CONNECTION, NAMESPACE, option, OUTPUT, type OptionSpec } from "./options.ts";

/** The word grouping the plan verbs: `svc flags rollout <verb>`. */
export const ROLLOUT = "rollout";

const WAVE = option("--wave", "one wave: cluster ids or labels, then its bake (repeat it, in order)", {
  value: "CLUSTERS[:SECONDS]",
});
const START = option("--start", "when the first wave starts, RFC 3339 (default: at once)", {
  value: "TIME",
});
const PLAN_NAME = option("--name", "the plan's name (default: the flag's name and 5 random characters)", {
  value: "NAME",
});
const WAVE_NOTES = [
  "--wave IDS[:SECONDS]: cluster ids, comma-separated (--wave local:60, --wave eu-1,eu-2:300);",
  "--wave KEY=VALUE[,KEY=VALUE][:SECONDS]: the clusters whose ClusterConnection has these labels;",
  "SECONDS is the wave's bake, 0 to 86400 (default 60): how long its workloads must stay healthy.",
  "A last :PERCENT% (--wave prod:300:10%) changes that share of each cluster's matching workloads first",
  "(envVar and sidecar flags); once they baked healthy, all of them, which bake again.",
  "Each wave starts when the one before passed its gate; a failed gate rolls every applied wave back.",
];
const PLAN_OPTIONS: readonly OptionSpec[] = [OUTPUT, ...CONNECTION];

const action = (summary: string) => ({ args: "NAME", summary, options: PLAN_OPTIONS });
const decision = (summary: string) => ({
  args: "NAME",
  summary,
  options: [option("--comment", "why; shown with the decision", { value: "TEXT" }), ...PLAN_OPTIONS],
});

export const ROLLOUT_VERBS = {
  promote: {
    args: "NAMESPACE/NAME --from CLUSTER --wave W...",
    summary: "copy a flag's value in one cluster to others, wave by wave (a rollout plan)",
    options: [
      option("--from", "the source cluster, whose flag's value is promoted", { value: "ID" }),
      WAVE,
      START,
      PLAN_NAME,
      NAMESPACE,
      ...PLAN_OPTIONS,
    ],
    notes: [
      "The plan's change: the source flag's enabled, defaultValue, variants, defaultVariant, targeting.",
      ...WAVE_NOTES,
    ],
  },
  "rollout create": {
    args: "-f FILE | NAMESPACE/NAME --value V --wave W...",
    summary: "create a plan: a change to one flag, applied wave by wave",
    options: [
      option("--filename", "a YAML or JSON file holding the plan ('-' for stdin)", {
        short: "-f",
        value: "FILE",
        file: true,
      }),
      option("--value", "the flag's new default value, as text", { value: "VALUE" }),
      option("--enabled", "the flag's new enabled state", { value: "BOOL", choices: ["true", "false"] }),
      WAVE,
      START,
      PLAN_NAME,
      NAMESPACE,
      ...PLAN_OPTIONS,
    ],
    notes: [
      "The file: a plan as POST /api/v1/rollouts takes it (flag, change, waves, startAt, ...; name",
      "optional), or as rollout get -o yaml prints it. Without -f: --value and/or --enabled, and --wave.",
      ...WAVE_NOTES,
    ],
  },
  "rollout list": {
    args: "",
    summary: "list plans, newest first",
    options: [
      option("--flag", "only the plans of this flag", { value: "NAMESPACE/NAME" }),
      option("--phase", "only the plans in this phase", { value: "PHASE", choices: ROLLOUT_PHASES }),
      ...PLAN_OPTIONS,
    ],
  },
  "rollout get": action("show a plan: its waves, their clusters, each one's phase and message"),
  "rollout watch": {
    args: "NAME",
    summary: "print each change of a plan's phase, waves and clusters until it finishes",
    options: [
      option("--interval", "seconds between two reads of the plan (default 2)", { value: "SECONDS" }),
      ...PLAN_OPTIONS,
    ],
    notes: [
      "Exits 0 when the plan succeeds, 1 when it is RolledBack, Failed or Rejected.",
      "Ctrl-C stops watching (exit 130); the plan goes on.",
    ],
  },
  "rollout pause": action("pause a plan: no further wave starts"),
  "rollout resume": action("resume a paused plan"),
  "rollout abort": action("abort a plan: every applied wave is rolled back"),
  "rollout skip-bake": action("skip the rest of the current wave's bake (its gate still needs it healthy)"),
  "rollout approve": decision("approve a plan awaiting approval (a protected cluster); never its author's"),
  "rollout reject": decision("reject a plan awaiting approval; its author may, to withdraw it"),
  "rollout delete": action("delete a finished plan (an unfinished one: abort it first)"),
} as const;

export type RolloutVerb = keyof typeof ROLLOUT_VERBS;
