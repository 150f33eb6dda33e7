// A user's access as the users page edits it (pure: unit-tested): a global role or "none", and
// grants typed as comma-separated lists. Checked by core's bounds and rules before any request,
// so the form names the field the API would refuse, and last by the API's schema of the body.
import {
  GRANT_CLUSTERS_MAX,
  GRANT_LABELS_MAX,
  GRANT_NAMESPACES_MAX,
  GRANTS_MAX,
  NAMESPACE_PATTERN,
  NAMESPACE_PATTERN_MAX,
  grantsProblem,
  isDns1123Label,
  isLabelKey,
  isLabelValue,
  matchesPattern,
  schemaRefusals,
  UpdateUserBodyCheck,
  userAccessProblem,
  type Grant,
  type Role,
  type UserRole,
} from "@svc/core/browser";

/** One grant as typed: each list comma-separated, empty for "all". */
export interface GrantForm {
  role: Role;
  clusters: string;
  clusterLabels: string;
  namespaces: string;
}

export const emptyGrant = (): GrantForm => ({
  role: "editor",
  clusters: "",
  clusterLabels: "",
  namespaces: "",
});

/** "a, b,,c" → ["a", "b", "c"]; undefined for an empty text ("all"). */
function listOf(text: string): string[] | undefined {
  const items = text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
  return items.length === 0 ? undefined : items;
}

export function grantFromForm(form: GrantForm): Grant {
  const clusters = listOf(form.clusters);
  const namespaces = listOf(form.namespaces);
  const pairs = listOf(form.clusterLabels)?.map((pair) => {
    const at = pair.indexOf("=");
    return at < 0 ? [pair, ""] : [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
  });
  return {
    role: form.role,
    ...(clusters === undefined ? {} : { clusters }),
    ...(pairs === undefined ? {} : { clusterLabels: Object.fromEntries(pairs) as Record<string, string> }),
    ...(namespaces === undefined ? {} : { namespaces }),
  };
}

export function formFromGrant(grant: Grant): GrantForm {
  return {
    role: grant.role,
    clusters: (grant.clusters ?? []).join(", "),
    clusterLabels: Object.entries(grant.clusterLabels ?? {})
      .map(([key, value]) => `${key}=${value}`)
      .join(", "),
    namespaces: (grant.namespaces ?? []).join(", "),
  };
}

export type GrantField = "clusters" | "clusterLabels" | "namespaces";

/** What is wrong with each field of one grant, by the bounds and patterns of core's schema. */
export function grantFormProblems(form: GrantForm): Partial<Record<GrantField, string>> {
  const problems: Partial<Record<GrantField, string>> = {};
  const clusters = listOf(form.clusters) ?? [];
  const bad = clusters.find((id) => !isDns1123Label(id));
  if (bad !== undefined)
    problems.clusters = `${JSON.stringify(bad)} is not a cluster id (lowercase, digits, '-')`;
  else if (clusters.length > GRANT_CLUSTERS_MAX) problems.clusters = `at most ${GRANT_CLUSTERS_MAX} clusters`;
  else if (new Set(clusters).size !== clusters.length) problems.clusters = "lists a cluster twice";

  const pairs = listOf(form.clusterLabels) ?? [];
  const badPair = pairs.find((pair) => {
    const at = pair.indexOf("=");
    return at < 0 || !isLabelKey(pair.slice(0, at).trim()) || !isLabelValue(pair.slice(at + 1).trim());
  });
  if (badPair !== undefined) problems.clusterLabels = `${JSON.stringify(badPair)} is not key=value`;
  else if (pairs.length > GRANT_LABELS_MAX) problems.clusterLabels = `at most ${GRANT_LABELS_MAX} labels`;

  const namespaces = listOf(form.namespaces) ?? [];
  const badNamespace = namespaces.find(
    (ns) => ns.length > NAMESPACE_PATTERN_MAX || !matchesPattern(NAMESPACE_PATTERN, ns),
  );
  if (badNamespace !== undefined)
    problems.namespaces = `${JSON.stringify(badNamespace)} is not a namespace or pattern (e.g. shop-*)`;
  else if (namespaces.length > GRANT_NAMESPACES_MAX)
    problems.namespaces = `at most ${GRANT_NAMESPACES_MAX} namespaces`;
  else if (new Set(namespaces).size !== namespaces.length) problems.namespaces = "lists a namespace twice";
  return problems;
}

/** What keeps the access from being saved as a whole, or undefined when it can be. */
export function accessProblem(role: UserRole, grants: readonly GrantForm[]): string | undefined {
  if (grants.length > GRANTS_MAX) return `at most ${GRANTS_MAX} grants`;
  const whole = userAccessProblem(role, grants.map(grantFromForm));
  if (whole !== undefined) return whole;
  if (grants.some((grant) => Object.keys(grantFormProblems(grant)).length > 0))
    return "correct the grants marked above";
  const problem = grantsProblem(grants.map(grantFromForm));
  if (problem !== undefined) return problem;
  // A new user's body (CreateUserBody) takes role and grants by the same schemas.
  const refusals = schemaRefusals(UpdateUserBodyCheck, { role, grants: grants.map(grantFromForm) });
  const refused = Object.entries(refusals).map(([field, reason]) =>
    field === "" ? reason : `${field}: ${reason}`,
  );
  return refused.length === 0 ? undefined : refused.join("; ");
}
