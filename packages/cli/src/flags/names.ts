// How a command line names things (pure): a flag as NAMESPACE/NAME, labels as k=v pairs. Shared
// by the parsers of the flag verbs (parse.ts) and of the rollout verbs (rollout-parse.ts).
import type { FieldError } from "@svc/core";

/** Where a flag is: its cluster, namespace and name. */
export interface FlagRef {
  cluster: string;
  namespace: string;
  name: string;
}

export const DEFAULT_CLUSTER = "local";

/** The options read from a command line: the last value of each, and every value of each in order. */
export interface OptionValues {
  values: Map<string, string>;
  lists: Map<string, string[]>;
  positional: string[];
}

/** "k=v,k=v" as labels, or undefined when a pair lacks its '=' or its key. */
export function parseLabels(text: string): Record<string, string> | undefined {
  const pairs = text.split(",").map((pair) => pair.split("="));
  if (pairs.some((pair) => pair.length !== 2 || pair[0] === "")) return undefined;
  return Object.fromEntries(pairs as [string, string][]);
}

/** NAMESPACE/NAME, or NAME with --namespace; `what` names the argument in errors. */
export function flagRef(
  values: Map<string, string>,
  positional: string[],
  errors: FieldError[],
  what = "NAMESPACE/NAME",
): FlagRef {
  const cluster = values.get("--cluster") ?? DEFAULT_CLUSTER;
  const [first, ...extra] = positional;
  if (extra.length > 0) errors.push({ field: extra[0] ?? "", message: "is one argument too many" });
  if (first === undefined) {
    errors.push({ field: what, message: "is required" });
    return { cluster, namespace: "", name: "" };
  }
  const parts = first.split("/");
  const namespace = parts.length === 2 ? (parts[0] ?? "") : (values.get("--namespace") ?? "");
  const name = parts.at(-1) ?? "";
  if (parts.length > 2 || name === "" || namespace === "")
    errors.push({
      field: what,
      message: `must name a namespace and a flag, got ${JSON.stringify(first)}`,
    });
  else if (parts.length === 2 && values.has("--namespace") && values.get("--namespace") !== namespace)
    errors.push({ field: "--namespace", message: `disagrees with ${first}` });
  return { cluster, namespace, name };
}

export function noPositional(positional: string[], errors: FieldError[]) {
  if (positional.length > 0) errors.push({ field: positional[0] ?? "", message: "is not expected here" });
}
