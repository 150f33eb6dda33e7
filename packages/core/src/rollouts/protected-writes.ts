// Protected clusters (docs/safe-changes.md "Protected clusters"): a plan touching one waits for a
// second user, so a direct write of a flag there would walk around that. Editors are sent to a
// plan; an admin may override with a reason, which the audit log keeps. Pure, and light enough
// for the CLI to import (@svc/core/rollouts/protected-writes): the API decides every write route with it.
import type { Role } from "../users/access.ts";

/** The ClusterConnection label that makes plans touching the cluster wait for a second user. */
export const PROTECTED_CLUSTER_LABEL = "svc.io/protected";

/** Whether a ClusterConnection's labels protect it: only the exact value "true" does. */
export function isProtectedCluster(labels: Readonly<Record<string, string>>): boolean {
  return labels[PROTECTED_CLUSTER_LABEL] === "true";
}

/** The request header that carries an admin's reason to write a protected cluster directly. */
export const OVERRIDE_REASON_HEADER = "X-Svc-Override-Reason";
/** A reason is a sentence or two, not a document: it is stored in every audit event it allows. */
export const OVERRIDE_REASON_MAX = 500;

export const DIRECT_WRITES = ["create", "update", "toggle", "delete", "import"] as const;
export type DirectWrite = (typeof DIRECT_WRITES)[number];

export interface DirectWriteInput {
  write: DirectWrite;
  cluster: { id: string; labels: Readonly<Record<string, string>> };
  /** The flag written; without a name for an import (every flag of a file). */
  flag: { namespace: string; name?: string | undefined };
  /** The caller's role for this flag. */
  role: Role | undefined;
  /** The override header as received (Node joins repeated headers; an array is refused). */
  overrideHeader: string | readonly string[] | undefined;
  /** A preview that writes nothing. */
  dryRun: boolean;
}

export type DirectWriteDecision =
  | { outcome: "allow" }
  /** Allowed by an admin's override: the reason goes into the audit event. */
  | { outcome: "override"; reason: string }
  | { outcome: "refuse"; status: 400 | 403; error: string };

export type OverrideReason = { ok: true; reason: string | undefined } | { ok: false; error: string };

/**
 * The reason an override header carries: percent-decoded (a header is Latin-1 on the wire, so
 * clients send UTF-8 text with encodeURIComponent), trimmed, 1 to OVERRIDE_REASON_MAX
 * characters, no control characters. Absent header: no reason.
 */
export function overrideReason(header: string | readonly string[] | undefined): OverrideReason {
  if (header === undefined) return { ok: true, reason: undefined };
  const name = OVERRIDE_REASON_HEADER;
  if (typeof header !== "string") return { ok: false, error: `${name}: give it once` };
  let decoded: string;
  try {
    decoded = decodeURIComponent(header);
  } catch {
    return {
      ok: false,
      error: `${name}: is not valid percent-encoded UTF-8 (encode it with encodeURIComponent)`,
    };
  }
  const reason = decoded.trim();
  if (reason === "") return { ok: false, error: `${name}: must say why (it is empty)` };
  // Counted in code points, as a person counts characters (a UTF-16 unit count would halve the bound for some scripts).
  if (Array.from(reason).length > OVERRIDE_REASON_MAX)
    return { ok: false, error: `${name}: must be at most ${OVERRIDE_REASON_MAX} characters` };
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (/[\u0000-\u001f\u007f-\u009f]/.test(reason))
    return { ok: false, error: `${name}: must not hold control characters` };
  return { ok: true, reason };
}

function subject({ write, flag }: DirectWriteInput): string {
  const name =
    flag.name === undefined ? `flags into ${flag.namespace}` : `of flag ${flag.namespace}/${flag.name}`;
  return write === "import" ? `an import of ${name}` : `a direct ${write} ${name}`;
}

/** Where a protected change goes instead, in the REST API, the CLI and the dashboard. */
function planHint(input: DirectWriteInput): string {
  const flag =
    input.flag.name === undefined ? "NAMESPACE/NAME" : `${input.flag.namespace}/${input.flag.name}`;
  const create = input.write === "create" || input.write === "import";
  return (
    `${create ? "create the flag in an unprotected cluster, then " : ""}change it through a plan that a second user approves: ` +
    `POST /api/v1/rollouts (svc flags rollout create ${flag} --value VALUE --wave ${input.cluster.id}, ` +
    `or svc flags promote; "New rollout" in the dashboard)`
  );
}

const REFUSAL =
  /^cluster (\S+) is protected: a direct (update|toggle|delete) of flag ([^/\s]+)\/([^\s;]+) is refused/;

/**
 * The flag and cluster a refusal of directWriteDecision names, read back from its message (the
 * dashboard links it to a new plan of that flag). Undefined for any other message, and for a
 * create or an import, which no plan can make.
 */
export function protectedRefusal(
  message: string,
): { clusterId: string; write: DirectWrite; namespace: string; name: string } | undefined {
  const match = REFUSAL.exec(message);
  if (match === null) return undefined;
  const [, clusterId = "", write = "", namespace = "", name = ""] = match;
  return { clusterId, write: write as DirectWrite, namespace, name };
}

/**
 * Whether a direct write of a flag may go ahead. Off protected clusters, and for dry runs,
 * always. On a protected cluster only an admin with a valid override reason; everyone else is
 * refused (403) with where to make the change instead. A malformed reason is a 400 whoever sends it.
 */
export function directWriteDecision(input: DirectWriteInput): DirectWriteDecision {
  if (!isProtectedCluster(input.cluster.labels) || input.dryRun) return { outcome: "allow" };
  const parsed = overrideReason(input.overrideHeader);
  if (!parsed.ok) return { outcome: "refuse", status: 400, error: parsed.error };
  const refused = `cluster ${input.cluster.id} is protected: ${subject(input)} is refused`;
  if (input.role !== "admin") {
    const overridden =
      parsed.reason === undefined ? "" : ` (only an admin may override with ${OVERRIDE_REASON_HEADER})`;
    return { outcome: "refuse", status: 403, error: `${refused}${overridden}; ${planHint(input)}` };
  }
  if (parsed.reason === undefined)
    return {
      outcome: "refuse",
      status: 403,
      error: `${refused}; ${planHint(input)}; or, as an admin, say why in the header ${OVERRIDE_REASON_HEADER} (audited)`,
    };
  return { outcome: "override", reason: parsed.reason };
}
