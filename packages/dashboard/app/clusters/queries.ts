import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ClusterView, DiscoveredWorkload, WorkloadDetail } from "@svc/core/browser";
import { api, LIVE_REFRESH_MS } from "../api/client.ts";
import { LIST_PAGE_SIZE, type ListPage } from "../api/list-page.ts";

const clusterPath = (id: string) => `/api/v1/clusters/${encodeURIComponent(id)}`;

export const clusterKeys = {
  all: ["clusters"] as const,
  one: (id: string) => ["clusters", "one", id] as const,
  namespaces: (id: string) => ["clusters", "namespaces", id] as const,
  workloads: (id: string, namespace?: string) => ["clusters", "workloads", id, namespace ?? ""] as const,
  workload: (id: string, namespace: string, name: string, kind: string) =>
    ["clusters", "workload", id, namespace, name, kind] as const,
};

/**
 * Every registered cluster, the local one first; refreshed so status changes show up. With
 * `poll: false` (the session's labels) it only shares what the pages that poll it fetched.
 */
export function useClusters({ poll = true }: { poll?: boolean } = {}) {
  return useQuery({
    queryKey: clusterKeys.all,
    queryFn: ({ signal }) => api<ClusterView[]>("/api/v1/clusters", { signal }),
    refetchInterval: poll ? LIVE_REFRESH_MS : false,
    ...(poll ? {} : { staleTime: 60_000 }),
  });
}

export function useCluster(id: string) {
  return useQuery({
    queryKey: clusterKeys.one(id),
    queryFn: ({ signal }) => api<ClusterView>(clusterPath(id), { signal }),
    refetchInterval: LIVE_REFRESH_MS,
  });
}

/** Namespaces of a cluster (system namespaces excluded by the API). */
export function useNamespaces(clusterId: string | undefined) {
  return useQuery({
    queryKey: clusterKeys.namespaces(clusterId ?? ""),
    queryFn: ({ signal }) => api<string[]>(`${clusterPath(clusterId ?? "")}/namespaces`, { signal }),
    enabled: clusterId !== undefined && clusterId !== "",
    refetchInterval: LIVE_REFRESH_MS,
  });
}

/**
 * A cluster's workloads a page at a time (more on request); every loaded page is polled
 * conditionally (ETag/304), so a cluster of thousands is never downloaded whole.
 */
export function useWorkloadPages(clusterId: string, namespace?: string) {
  return useInfiniteQuery({
    queryKey: clusterKeys.workloads(clusterId, namespace),
    queryFn: ({ pageParam, signal }) =>
      api<ListPage<DiscoveredWorkload>>(`${clusterPath(clusterId)}/workloads`, {
        query: { namespace, limit: LIST_PAGE_SIZE, continue: pageParam },
        signal,
      }),
    initialPageParam: "",
    getNextPageParam: (last) => last.metadata.continue,
    refetchInterval: LIVE_REFRESH_MS,
  });
}

export function useWorkload(clusterId: string, namespace: string, name: string, kind: string) {
  return useQuery({
    queryKey: clusterKeys.workload(clusterId, namespace, name, kind),
    queryFn: ({ signal }) =>
      api<WorkloadDetail>(
        `${clusterPath(clusterId)}/workloads/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`,
        { query: { kind }, signal },
      ),
    refetchInterval: LIVE_REFRESH_MS,
  });
}

export function useRegisterCluster() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: Record<string, unknown>) =>
      api<ClusterView>("/api/v1/clusters", { method: "POST", body }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: clusterKeys.all }),
  });
}

export function useRemoveCluster() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<{ message: string }>(clusterPath(id), { method: "DELETE" }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: clusterKeys.all }),
  });
}
