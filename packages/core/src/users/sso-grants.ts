/**
 * Single sign-on's group → grant mapping (SVC_OIDC_GROUP_GRANTS, docs/access.md): the grants a
 * signed-in identity holds are those of the groups its role claim names, decided at each sign-in.
 */
import { GRANTS_MAX, type Grant } from "./grants.ts";
import { validateGrants } from "./grant-schema.ts";
import { describeErrors } from "../schema/validation.ts";

export interface GroupGrant {
  group: string;
  grant: Grant;
}

/**
 * Bounds of the mapping: no more entries than one user may hold (GRANTS_MAX), so a user in
 * every mapped group gets grants the users store accepts when it reads them back.
 */
export const GROUP_GRANTS_MAX = GRANTS_MAX;
const GROUP_MAX = 256;

export type ParsedGroupGrants = { ok: true; value: GroupGrant[] } | { ok: false; message: string };

/** The setting's JSON `[{group, grant}]`; empty text is no mapping. */
export function parseGroupGrants(text: string): ParsedGroupGrants {
  if (text.trim() === "") return { ok: true, value: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, message: 'must be JSON: [{"group": "...", "grant": {"role": "editor", ...}}]' };
  }
  if (!Array.isArray(parsed) || parsed.length > GROUP_GRANTS_MAX) {
    return { ok: false, message: `must be a JSON array of at most ${GROUP_GRANTS_MAX} {group, grant}` };
  }
  const value: GroupGrant[] = [];
  for (const [i, entry] of (parsed as unknown[]).entries()) {
    const { group, grant, ...rest } = (typeof entry === "object" && entry !== null ? entry : {}) as Record<
      string,
      unknown
    >;
    if (
      typeof group !== "string" ||
      group === "" ||
      group.length > GROUP_MAX ||
      Object.keys(rest).length > 0
    ) {
      return {
        ok: false,
        message: `[${i}]: must be {group, grant} with a group name of 1-${GROUP_MAX} characters`,
      };
    }
    const checked = validateGrants([grant], `[${i}].grant`);
    if (!checked.ok) return { ok: false, message: describeErrors(checked.errors) };
    value.push({ group, grant: checked.value[0] as Grant });
  }
  return { ok: true, value };
}

/** The grants of every group given (sso.ts's claimValues of the role claim), in mapping order. */
export function grantsFromGroups(groups: readonly string[], mapping: readonly GroupGrant[]): Grant[] {
  return mapping.filter((m) => groups.includes(m.group)).map((m) => m.grant);
}
