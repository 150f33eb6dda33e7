/**
 * The rule for a kubeconfig svc may use to reach a registered cluster: its current context
 * names a cluster and a user of the file, and its credentials are inline. exec plugins and
 * auth-providers would run commands on the svc server, and file references would make it read
 * its own files and send them to the cluster, so both are refused. How it says to reach the
 * server (its CA, insecure-skip-tls-verify, proxy-url) is read for transportProblems. Messages
 * never quote the file (the YAML parser's own message would).
 */
import { parse } from "yaml";
import type { ServerTrust } from "./cluster-connection.ts";

interface RawKubeconfig {
  "current-context"?: unknown;
  contexts?: { name?: unknown; context?: { cluster?: unknown; user?: unknown } }[];
  clusters?: { name?: unknown; cluster?: Record<string, unknown> }[];
  users?: { name?: unknown; user?: Record<string, unknown> }[];
}

const FILE_REFERENCES = ["token-file", "client-certificate", "client-key"] as const;

type Entries = { cluster: Record<string, unknown>; user: Record<string, unknown> } | { problem: string };

/** The cluster and user entries of the current context, or why there are none. */
function currentEntries(text: string): Entries {
  let document: unknown;
  try {
    document = parse(text);
  } catch {
    return { problem: "is not valid YAML" };
  }
  if (typeof document !== "object" || document === null) return { problem: "is not a kubeconfig" };
  const config = document as RawKubeconfig;
  const list = <T>(value: T[] | undefined): T[] => (Array.isArray(value) ? value : []);
  const context = list(config.contexts).find((c) => c.name === config["current-context"])?.context;
  if (context === undefined) return { problem: "has no current context" };
  const cluster = list(config.clusters).find((c) => c.name === context.cluster)?.cluster;
  if (cluster === undefined) return { problem: "names in its current context no cluster of the file" };
  const user = list(config.users).find((u) => u.name === context.user)?.user ?? {};
  return { cluster, user };
}

/** Why svc cannot use this kubeconfig (a phrase to follow the file's name), or undefined. */
export function kubeconfigProblem(text: string): string | undefined {
  const entries = currentEntries(text);
  if ("problem" in entries) return entries.problem;
  const { cluster, user } = entries;
  if (user["exec"] !== undefined) {
    return "uses an exec credential plugin, which is not run: put a token or client certificate in it";
  }
  if (user["auth-provider"] !== undefined) {
    return "uses an auth-provider, which is not run: put a token or client certificate in it";
  }
  const file =
    FILE_REFERENCES.find((key) => user[key] !== undefined) ??
    (cluster["certificate-authority"] !== undefined ? "certificate-authority" : undefined);
  return file === undefined
    ? undefined
    : `refers to a file (${file}): put the data inline (${file}-data or token)`;
}

/** How the current context's cluster entry says to reach the server; undefined when there is none. */
export function kubeconfigTrust(text: string): ServerTrust | undefined {
  const entries = currentEntries(text);
  if ("problem" in entries) return undefined;
  const { cluster } = entries;
  const ca = cluster["certificate-authority-data"];
  return {
    ca: typeof ca === "string" && ca.trim() !== "",
    // As client-node reads them: a skip only when true (a quoted "true" counted too, to be safe).
    skipTLSVerify: [true, "true"].includes(cluster["insecure-skip-tls-verify"] as boolean | string),
    proxy: Boolean(cluster["proxy-url"]),
  };
}
