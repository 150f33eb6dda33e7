// The verbs of the first version, `svc flags import` and `svc flags export` (flagd files): read
// by the one parser (parse.ts) with their options below, in their first version's syntax, and
// answering --help with their own usage text, which the verbs' help (verbs.ts) does not build.
import { CONNECTION, option, OVERRIDE_REASON, type OptionSpec } from "./options.ts";

export const FLAGD_USAGE = `usage:
  svc flags import <file> --namespace N --cluster C --selector k=v[,k=v]
                   [--delivery sidecar|envVar|configMap] [--config-map NAME --key KEY] [--dry-run]
                   [--override-reason TEXT]   (admin, into a protected cluster; audited)
  svc flags export --namespace N --cluster C [> file]
  both: [--server URL] [--token TOKEN]

import creates every flag of a flagd flag-definition file (JSON) in the namespace, or none (every
problem is listed); export prints the namespace's flags as a flagd file. docs/api-flags-clusters.md.
`;

const WHERE = [
  option("--namespace", "the namespace of the flags (required)", { value: "N" }),
  option("--cluster", "the cluster id (required)", { value: "C" }),
];

/**
 * How import delivers the flags it creates. Their values are checked as the request is built
 * (flagd-parse.ts), not by choices, so that the first version's messages and their order stay.
 */
export const DELIVERY_OPTIONS = [
  option("--selector", "workload labels (required)", { value: "k=v[,k=v]" }),
  option("--delivery", "how workloads get the flags (default sidecar)", {
    value: "sidecar|envVar|configMap",
  }),
  option("--config-map", "configMap: the ConfigMap's name", { value: "NAME" }),
  option("--key", "configMap: the key in the ConfigMap", { value: "KEY" }),
];

export interface FlagdVerbSpec {
  /** Its line in `svc flags` alone. */
  summary: string;
  options: readonly OptionSpec[];
}

export const FLAGD_VERBS = {
  import: {
    summary: "create every flag of a flagd file in a namespace (svc flags import --help)",
    options: [
      ...WHERE,
      ...DELIVERY_OPTIONS,
      option("--dry-run", "check and list the flags; create none"),
      ...CONNECTION,
      OVERRIDE_REASON,
    ],
  },
  export: {
    summary: "print a namespace's flags as a flagd file (svc flags export --help)",
    options: [...WHERE, ...CONNECTION],
  },
} as const satisfies Record<string, FlagdVerbSpec>;

export type FlagdVerb = keyof typeof FLAGD_VERBS;
export const isFlagdVerb = (word: string): word is FlagdVerb => Object.hasOwn(FLAGD_VERBS, word);

/** Import's options that export reads only to refuse by name, "an option of import only". */
export const IMPORT_ONLY: readonly OptionSpec[] = [...DELIVERY_OPTIONS, OVERRIDE_REASON];
