// What grant and revoke change in a user's grants (pure: unit-tested). Both read the user, change
// the list and PUT it back whole, as the dashboard's access dialog does.
import type { Grant } from "@svc/core";
import type { GrantChoice } from "./parse.ts";

/** The same grant: role and scope, whatever the order of their lists and labels. */
export function sameGrant(a: Grant, b: Grant): boolean {
  const key = (grant: Grant) =>
    JSON.stringify([
      grant.role,
      grant.clusters === undefined ? null : [...grant.clusters].sort(),
      grant.clusterLabels === undefined ? null : Object.entries(grant.clusterLabels).sort(),
      grant.namespaces === undefined ? null : [...grant.namespaces].sort(),
    ]);
  return key(a) === key(b);
}

/** The grants with `grant` added, or undefined when the user holds it already. */
export function addGrant(grants: readonly Grant[], grant: Grant): Grant[] | undefined {
  return grants.some((held) => sameGrant(held, grant)) ? undefined : [...grants, grant];
}

/** The grants without the chosen ones, or undefined when none is chosen (no such grant). */
export function removeGrants(grants: readonly Grant[], choice: GrantChoice): Grant[] | undefined {
  if (choice.kind === "all") return grants.length === 0 ? undefined : [];
  if (choice.kind === "index")
    return choice.index <= grants.length ? grants.filter((_, i) => i !== choice.index - 1) : undefined;
  const kept = grants.filter((held) => !sameGrant(held, choice.grant));
  return kept.length === grants.length ? undefined : kept;
}
