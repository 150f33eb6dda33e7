// The options more than one verb takes, and the shape of an option in the verb table
// (verbs.ts, rollout-verbs.ts). Imports nothing of its own, so both tables can share it.

export const OUTPUTS = ["table", "json", "yaml"] as const;
export type Output = (typeof OUTPUTS)[number];

export interface OptionSpec {
  /** The long name, with its dashes: "--cluster". */
  name: string;
  short?: string;
  /** What the value is called in help ("URL"); absent for a switch. */
  value?: string;
  /** The values it accepts, when they are a closed list (help, parsing and completion use it). */
  choices?: readonly string[];
  /** A file name: the completion offers files. */
  file?: boolean;
  /** It may be given more than once; every value is kept, in order. */
  repeats?: boolean;
  help: string;
}

export const option = (
  name: string,
  help: string,
  more: Omit<OptionSpec, "name" | "help"> = {},
): OptionSpec => ({ name, help, ...more });

export const SERVER = option("--server", "API server (default: SVC_API_URL, else the server of login)", {
  value: "URL",
});
const TOKEN = option("--token", "bearer token (default: SVC_TOKEN, else the token of login)", {
  value: "TOKEN",
});
export const CONNECTION = [SERVER, TOKEN];
/** Sent as X-Svc-Override-Reason with every request of the command (the API reads it on direct writes). */
export const OVERRIDE_REASON = option(
  "--override-reason",
  "admin: write a flag of a protected cluster directly, saying why (audited); else change it by a plan",
  { value: "TEXT" },
);
export const NAMESPACE = option("--namespace", "namespace, when the flag is named without one", {
  short: "-n",
  value: "NS",
});
export const OUTPUT = option("--output", "output format (default table)", {
  short: "-o",
  value: "FORMAT",
  choices: OUTPUTS,
});
