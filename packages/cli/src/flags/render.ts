// What `svc flags` prints (pure: unit-tested). json and yaml are the API's own representation,
// for scripts (and `get -o yaml` is a file `apply -f` takes back); table is for people.
import type { FlagView, PreviewEntry } from "@svc/core";
import { stringify } from "yaml";
import type { FieldChange, FlagPlan } from "./plan.ts";
import type { Output } from "./verbs.ts";

/** Columns padded to their widest cell, two spaces apart; no line ends in spaces. */
export function table(rows: readonly (readonly string[])[]): string {
  const columns = Math.max(0, ...rows.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, c) =>
    Math.max(...rows.map((row) => (row[c] ?? "").length)),
  );
  return rows
    .map((row) => row.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join("  "))
    .map((line) => `${line.trimEnd()}\n`)
    .join("");
}

/** One line of at most `max` characters: a JSON value or a description can hold newlines. */
export function shorten(text: string, max = 40): string {
  const line = text.replace(/\s*\n\s*/g, " ");
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** "envVar app=web,tier=front": the delivery kind and its selector. */
export function deliveryText(delivery: FlagView["delivery"]): string {
  const [kind = "", settings] = Object.entries(delivery)[0] ?? [];
  const labels = (settings as { selector?: { matchLabels?: Record<string, string> } } | undefined)?.selector
    ?.matchLabels;
  const selector = Object.entries(labels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
  return `${kind} ${selector}`.trim();
}

export const FLAG_HEADER = ["NAMESPACE", "NAME", "CLUSTER", "TYPE", "VALUE", "ENABLED", "DELIVERY", "PHASE"];

export function flagRow(flag: FlagView): string[] {
  return [
    flag.namespace,
    flag.name,
    flag.clusterId,
    flag.type,
    shorten(flag.defaultValue),
    flag.enabled ? "yes" : "no",
    shorten(deliveryText(flag.delivery), 50),
    flag.status.phase,
  ];
}

/** json or yaml of any API answer. */
export function renderData(value: unknown, output: Exclude<Output, "table">): string {
  return output === "json" ? `${JSON.stringify(value, null, 2)}\n` : stringify(value);
}

/** list and get: a table of flags, or the API's flag objects (one object for get). */
export function renderFlags(flags: FlagView | readonly FlagView[], output: Output): string {
  if (output !== "table") return renderData(flags, output);
  const list = Array.isArray(flags) ? flags : [flags as FlagView];
  if (list.length === 0) return "no flags\n";
  return table([FLAG_HEADER, ...list.map(flagRow)]);
}

const shown = (value: unknown) => (value === undefined ? "(none)" : shorten(JSON.stringify(value), 60));

function changeLine({ field, before, after }: FieldChange): string {
  if (before === undefined) return `${field}: ${shown(after)}`;
  return `${field}: ${shown(before)} → ${shown(after)}`;
}

/** The workloads a change touches: whether they restart and why, and the value they get. */
export function previewLines(preview: readonly PreviewEntry[]): string[] {
  if (preview.length === 0) return ["workloads: none affected"];
  const rows = preview.map((entry) => [
    `${entry.kind} ${entry.namespace}/${entry.name}`,
    entry.matchedBy === "none" ? "withdrawn" : `matched by ${entry.matchedBy}`,
    entry.restarts ? `restarts (${entry.reasons.join("; ")})` : "no restart",
    entry.value === undefined ? "" : `value ${shorten(JSON.stringify(entry.value))}`,
  ]);
  return [
    `workloads (${preview.length}):`,
    ...table(rows)
      .trimEnd()
      .split("\n")
      .map((line) => `  ${line}`),
  ];
}

const MARK = { create: "+", update: "~", unchanged: "=" } as const;

/** diff: each flag's changed fields and touched workloads, then a count. */
export function renderPlans(plans: readonly FlagPlan[], output: Output): string {
  if (output !== "table") return renderData(plans, output);
  const lines: string[] = [];
  for (const plan of plans) {
    const address = `${plan.namespace}/${plan.name} (cluster ${plan.cluster})`;
    if (plan.action === "unchanged") {
      lines.push(`= ${address}: unchanged`);
      continue;
    }
    lines.push(`${MARK[plan.action]} ${address}: ${plan.action === "create" ? "created" : "changed"}`);
    lines.push(...plan.changes.map((change) => `    ${changeLine(change)}`));
    if (plan.preview !== undefined) lines.push(...previewLines(plan.preview).map((line) => `    ${line}`));
  }
  const count = (action: FlagPlan["action"]) => plans.filter((plan) => plan.action === action).length;
  lines.push(`${count("create")} to create, ${count("update")} to change, ${count("unchanged")} unchanged`);
  return `${lines.join("\n")}\n`;
}

export type ApplyResult = "created" | "configured" | "unchanged";

/** What apply did (or, with --dry-run, would do) to each flag. */
export function renderApplied(
  done: readonly { plan: FlagPlan; result: ApplyResult }[],
  dryRun: boolean,
  output: Output,
): string {
  if (output !== "table") {
    const rows = done.map(({ plan, result }) => ({
      cluster: plan.cluster,
      namespace: plan.namespace,
      name: plan.name,
      result,
      dryRun,
      changes: plan.changes,
    }));
    return renderData(rows, output);
  }
  const verb = (result: ApplyResult) => (dryRun && result !== "unchanged" ? `${result} (dry run)` : result);
  return done
    .map(({ plan, result }) => `${plan.namespace}/${plan.name} (cluster ${plan.cluster}) ${verb(result)}\n`)
    .join("");
}
