import {
  keepPreviousData,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from "@tanstack/react-query";
import type { FlagCreateBody, FlagPreview, FlagUpdateBody, FlagView } from "@svc/core/browser";
import type { Evaluation } from "@svc/core/targeting/flagd";
import { api, LIVE_REFRESH_MS } from "../api/client.ts";
import { LIST_PAGE_SIZE, type ListPage } from "../api/list-page.ts";

/** Where a flag lives: a flag is a FeatureFlag in one namespace of one cluster. */
export interface FlagAddress {
  clusterId: string;
  namespace: string;
  name: string;
}

export interface FlagFilter {
  clusterId?: string;
  namespace?: string;
  /** The API's name-prefix filter, used once the list is paged (see `isPagedList`). */
  namePrefix?: string;
}

const flagPath = (a: FlagAddress) =>
  `/api/v1/flags/${encodeURIComponent(a.namespace)}/${encodeURIComponent(a.name)}`;

export const flagKeys = {
  all: ["flags"] as const,
  pages: (filter: FlagFilter) => ["flags", "pages", filter] as const,
  one: (a: FlagAddress) => ["flags", "one", a.clusterId, a.namespace, a.name] as const,
};

/**
 * The flag list a page at a time, following `continue` as the table scrolls to its end. While
 * `live`, every loaded page is polled conditionally (ETag/304: an unchanged page costs no body);
 * the rows shown stay on screen while the next filter's first page loads, and an answer to an
 * older filter lands under its own key, never in the list shown.
 */
export function useFlagPages(filter: FlagFilter, { live, enabled }: { live: boolean; enabled: boolean }) {
  return useInfiniteQuery({
    queryKey: flagKeys.pages(filter),
    // No abort signal: a search typed on would abort the older search's request in flight, which
    // the browser reports as a failed request; its answer lands under its own key, unseen.
    queryFn: ({ pageParam }) =>
      api<ListPage<FlagView>>("/api/v1/flags", {
        query: { ...filter, limit: LIST_PAGE_SIZE, continue: pageParam },
      }),
    initialPageParam: "",
    getNextPageParam: (last) => last.metadata.continue,
    refetchInterval: live ? LIVE_REFRESH_MS : false,
    placeholderData: keepPreviousData,
    enabled,
  });
}

export function useFlag(address: FlagAddress) {
  return useQuery({
    queryKey: flagKeys.one(address),
    queryFn: ({ signal }) =>
      api<FlagView>(flagPath(address), { query: { clusterId: address.clusterId }, signal }),
    refetchInterval: LIVE_REFRESH_MS,
  });
}

/** After any write, every flag query is stale: lists and the flag's own page refetch. */
function useInvalidateFlags() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: flagKeys.all });
}

export function useCreateFlag() {
  const invalidate = useInvalidateFlags();
  return useMutation({
    mutationFn: (body: FlagCreateBody) => api<FlagView>("/api/v1/flags", { method: "POST", body }),
    onSuccess: invalidate,
  });
}

export function useUpdateFlag() {
  const invalidate = useInvalidateFlags();
  return useMutation({
    mutationFn: ({ address, body }: { address: FlagAddress; body: FlagUpdateBody }) =>
      api<FlagView>(flagPath(address), { method: "PUT", body, query: { clusterId: address.clusterId } }),
    onSuccess: invalidate,
  });
}

/** The blast radius of a create (no address) or an update, without writing anything. */
export function previewFlag(
  body: FlagCreateBody | FlagUpdateBody,
  address?: FlagAddress,
  signal?: AbortSignal,
) {
  return address === undefined
    ? api<FlagPreview>("/api/v1/flags", { method: "POST", body, query: { dryRun: true }, signal })
    : api<FlagPreview>(flagPath(address), {
        method: "PUT",
        body,
        query: { clusterId: address.clusterId, dryRun: true },
        signal,
      });
}

/** What a context gets from a draft flag, by the API's evaluator (a 400 names a field of the draft). */
export function evaluateDraft(
  flag: Partial<FlagCreateBody>,
  context: Record<string, unknown>,
  signal?: AbortSignal,
) {
  return api<Evaluation>("/api/v1/flags/evaluate", { method: "POST", body: { flag, context }, signal });
}

export function useToggleFlag() {
  const invalidate = useInvalidateFlags();
  return useMutation({
    mutationFn: ({ address, enabled }: { address: FlagAddress; enabled: boolean }) =>
      api<FlagView>(`${flagPath(address)}/toggle`, {
        method: "POST",
        body: { enabled },
        query: { clusterId: address.clusterId },
      }),
    onSuccess: invalidate,
  });
}

export function useDeleteFlag() {
  const invalidate = useInvalidateFlags();
  return useMutation({
    mutationFn: (address: FlagAddress) =>
      api<{ message: string }>(flagPath(address), {
        method: "DELETE",
        query: { clusterId: address.clusterId },
      }),
    onSuccess: invalidate,
  });
}
