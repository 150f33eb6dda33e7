import {
  DELIVERY_KINDS,
  deliveryKind,
  FLAG_PHASES,
  flagView,
  FlagView,
  pageGroups,
  type FeatureFlagResource,
  type SortKey,
  type SortKeyShape,
} from "@svc/core";
import type { ConnectedCluster } from "@svc/kube";
import Type from "typebox";
import { ListOf, PAGING_QUERY, listPageJson, type ListPaging } from "../http/list-reply.ts";
import { flagsJson, jsonArray } from "./list-json.ts";
import { READ_ALL } from "../http/scope.ts";

/** The query string of the flag list; `limit` and `continue` are checked by core's pager. */
export const FlagListQuery = Type.Object(
  {
    clusterId: Type.Optional(Type.String({ maxLength: 63 })),
    namespace: Type.Optional(Type.String({ maxLength: 63 })),
    namePrefix: Type.Optional(Type.String({ maxLength: 253, description: "Flags whose name starts so." })),
    delivery: Type.Optional(Type.Enum([...DELIVERY_KINDS])),
    phase: Type.Optional(Type.Enum([...FLAG_PHASES])),
    ...PAGING_QUERY,
  },
  { additionalProperties: false },
);
type FlagListQuery = Type.Static<typeof FlagListQuery>;

/** A page of flags in Kubernetes' list shape. */
export const FlagList = ListOf(FlagView);

export const FLAG_KEY: SortKeyShape = ["string", "string", "string", "string"];
/** A flag's place across clusters: the local cluster first, then by id (the unpaged order). */
const clusterKey = (cluster: ConnectedCluster): SortKey => [cluster.local ? "0" : "1", cluster.id];
const flagKey = (flag: FeatureFlagResource): SortKey => [flag.metadata.namespace, flag.metadata.name];

interface FlagFilter {
  namePrefix?: string;
  delivery?: string;
  phase?: string;
}

/** The flags of a cache snapshot that pass the filters; the snapshot itself when none is set. */
function filterFlags(
  flags: readonly FeatureFlagResource[],
  filter: FlagFilter,
  clusterId: string,
): readonly FeatureFlagResource[] {
  const { namePrefix, delivery, phase } = filter;
  if (namePrefix === undefined && delivery === undefined && phase === undefined) return flags;
  return flags.filter(
    (flag) =>
      (namePrefix === undefined || flag.metadata.name.startsWith(namePrefix)) &&
      (delivery === undefined || deliveryKind(flag.spec.delivery) === delivery) &&
      (phase === undefined || flagView(flag, clusterId).status.phase === phase),
  );
}

/** The answer's JSON: SPEC.md's array without paging, else one page in the list shape. */
export function flagListJson(
  clusters: readonly ConnectedCluster[],
  query: FlagListQuery,
  request: ListPaging,
  readable: (clusterId: string, namespace: string) => boolean = READ_ALL,
): string {
  const listed = clusters.map((cluster) => {
    const flags = filterFlags(cluster.flags.list(query.namespace), query, cluster.id);
    // A scoped user's list holds the namespaces they may read (global roles keep the cached snapshot).
    if (readable === READ_ALL) return { cluster, flags };
    // Decided once per namespace; a list the user may read whole stays the cached snapshot.
    const decided = new Map<string, boolean>();
    const may = (namespace: string): boolean => {
      const known = decided.get(namespace);
      if (known !== undefined) return known;
      const answer = readable(cluster.id, namespace);
      decided.set(namespace, answer);
      return answer;
    };
    const kept = flags.filter((flag) => may(flag.metadata.namespace));
    return { cluster, flags: kept.length === flags.length ? flags : kept };
  });
  if (!request.paged) return jsonArray(listed.map(({ cluster, flags }) => flagsJson(flags, cluster.id)));
  const page = pageGroups(
    listed,
    ({ cluster }) => clusterKey(cluster),
    ({ flags }) => flags,
    flagKey,
    request.after,
    request.limit ?? Number.MAX_SAFE_INTEGER,
  );
  const items = page.items.map(([{ cluster }, flag]) => JSON.stringify(flagView(flag, cluster.id)));
  return listPageJson(items, page, request.fingerprint);
}
