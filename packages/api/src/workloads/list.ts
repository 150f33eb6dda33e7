import {
  compareKeys,
  DiscoveredWorkload,
  discoveredWorkload,
  deliveryCluster,
  indexFlags,
  pageAfter,
  WORKLOAD_KINDS,
  type DeliveryScope,
  type EnvReader,
  type FlagIndex,
  type SortKey,
  type SortKeyShape,
  type Workload,
} from "@svc/core";
import type { ConnectedCluster } from "@svc/kube";
import Type from "typebox";
import { ListOf, PAGING_QUERY, listPageJson, type ListPaging } from "../http/list-reply.ts";
import { workloadsOf } from "./read.ts";

export const WorkloadListQuery = Type.Object(
  {
    namespace: Type.Optional(Type.String({ maxLength: 253 })),
    namePrefix: Type.Optional(
      Type.String({ maxLength: 253, description: "Workloads whose name starts so." }),
    ),
    kind: Type.Optional(Type.Enum([...WORKLOAD_KINDS])),
    ...PAGING_QUERY,
  },
  { additionalProperties: false },
);
type WorkloadListQuery = Type.Static<typeof WorkloadListQuery>;

export const WorkloadList = ListOf(DiscoveredWorkload);

/** A page's order: namespace, name, then kind (a Deployment and a StatefulSet may share a name). */
export const WORKLOAD_KEY: SortKeyShape = ["string", "string", "string"];
const workloadKey = ({ kind, object }: Workload): SortKey => [
  object.metadata?.namespace ?? "",
  object.metadata?.name ?? "",
  kind,
];

/**
 * The answer's JSON: SPEC.md's array (kind by kind, as the caches list them) without paging,
 * else one page in the list shape. Only the listed workloads are planned and summarized.
 * `readerIn` says what the caller may see of literal env values in a namespace; `scopeIn` is the
 * delivery scope the operator plans the namespace with.
 */
export function workloadListJson(
  cluster: ConnectedCluster,
  visibleNamespaces: ReadonlySet<string>,
  query: WorkloadListQuery,
  paging: ListPaging,
  readerIn: (namespace: string) => EnvReader,
  scopeIn: (namespace: string) => DeliveryScope,
): string {
  const { namespace, namePrefix, kind } = query;
  const listed = workloadsOf(cluster, namespace).filter(
    (workload) =>
      visibleNamespaces.has(workload.object.metadata?.namespace ?? "") &&
      (namePrefix === undefined || (workload.object.metadata?.name ?? "").startsWith(namePrefix)) &&
      (kind === undefined || workload.kind === kind),
  );
  const where = deliveryCluster(cluster);
  // Each namespace's flags are indexed, and its reader and scope decided, once, not per workload.
  const namespaces = new Map<string, { index: FlagIndex; reader: EnvReader; scope: DeliveryScope }>();
  const view = (workload: Workload): string => {
    const ns = workload.object.metadata?.namespace ?? "";
    let of = namespaces.get(ns);
    if (of === undefined) {
      of = { index: indexFlags(cluster.flags.list(ns)), reader: readerIn(ns), scope: scopeIn(ns) };
      namespaces.set(ns, of);
    }
    return JSON.stringify(discoveredWorkload(where, workload, of.index, of.reader, of.scope));
  };
  if (!paging.paged) return `[${listed.map(view).join(",")}]`;
  const sorted = listed.sort((a, b) => compareKeys(workloadKey(a), workloadKey(b)));
  const page = pageAfter(sorted, workloadKey, paging.after, paging.limit ?? Number.MAX_SAFE_INTEGER);
  return listPageJson(page.items.map(view), page, paging.fingerprint);
}
