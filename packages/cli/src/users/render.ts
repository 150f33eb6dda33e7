// What `svc users` prints (pure: unit-tested): json and yaml are the API's representation, for
// scripts; table is for people, one grant per line.
import type { Grant, UserView } from "@svc/core";
import { renderData, table } from "../flags/render.ts";
import type { Output } from "../flags/options.ts";

/** A user as the API shows it, printed whatever its role says (a newer server's role too). */
export type ShownUser = Omit<UserView, "role"> & { role: string };

const listText = (items: readonly string[] | undefined) => (items === undefined ? "*" : items.join(","));

const labelsText = (labels: Readonly<Record<string, string>> | undefined) =>
  labels === undefined
    ? "*"
    : Object.entries(labels)
        .map(([key, value]) => `${key}=${value}`)
        .join(",");

/** "editor@staging/shop-*": role, clusters (and labels in brackets), namespaces; "*" for all. */
export function grantText(grant: Grant): string {
  const labels = grant.clusterLabels === undefined ? "" : `[${labelsText(grant.clusterLabels)}]`;
  const clusters = grant.clusters === undefined && labels !== "" ? "" : listText(grant.clusters);
  return `${grant.role}@${clusters}${labels}/${listText(grant.namespaces)}`;
}

export function renderUsers(users: readonly ShownUser[], output: Output): string {
  if (output !== "table") return renderData(users, output);
  if (users.length === 0) return "no users\n";
  const rows = users.map((user) => [
    user.username,
    user.role,
    (user.grants ?? []).map(grantText).join(" ") || "-",
    user.createdAt,
  ]);
  return table([["USERNAME", "ROLE", "GRANTS", "CREATED"], ...rows]);
}

/** One user: its role, then its grants numbered as revoke --index takes them. */
export function renderUser(user: ShownUser, output: Output): string {
  if (output !== "table") return renderData(user, output);
  const grants = user.grants ?? [];
  const head = `user ${user.username}: global role ${user.role}, created ${user.createdAt}\n`;
  if (grants.length === 0) return `${head}no grants\n`;
  const rows = grants.map((grant, i) => [
    String(i + 1),
    grant.role,
    listText(grant.clusters),
    labelsText(grant.clusterLabels),
    listText(grant.namespaces),
  ]);
  return head + table([["#", "ROLE", "CLUSTERS", "CLUSTER-LABELS", "NAMESPACES"], ...rows]);
}
