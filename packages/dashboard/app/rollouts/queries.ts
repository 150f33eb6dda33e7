import {
  keepPreviousData,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from "@tanstack/react-query";
import { api, LIVE_REFRESH_MS } from "../api/client.ts";
import { LIST_PAGE_SIZE, type ListPage } from "../api/list-page.ts";
import { isFinished } from "./rollout-model.ts";
import type { RolloutCreateBody, RolloutPhase, RolloutView } from "./types.ts";

/**
 * A plan in flight is asked for this often: a wave applies, bakes and passes its gate within
 * seconds, and the timeline should show each step. A finished plan is not polled any more.
 */
export const PLAN_REFRESH_MS = 1500;

export interface RolloutFilter {
  phase?: RolloutPhase | undefined;
  /** `namespace/name` of a flag. */
  flag?: string | undefined;
}

export const rolloutPath = (name: string) => `/api/v1/rollouts/${encodeURIComponent(name)}`;

export const rolloutKeys = {
  all: ["rollouts"] as const,
  pages: (filter: RolloutFilter) => ["rollouts", "pages", filter] as const,
  one: (name: string) => ["rollouts", "one", name] as const,
};

/**
 * Plans, newest first, a page at a time ("Show more"); every loaded page is polled
 * conditionally (the list answers with an ETag, so an unchanged page costs no body).
 */
export function useRolloutPages(filter: RolloutFilter) {
  return useInfiniteQuery({
    queryKey: rolloutKeys.pages(filter),
    queryFn: ({ pageParam, signal }) =>
      api<ListPage<RolloutView>>("/api/v1/rollouts", {
        query: { ...filter, limit: LIST_PAGE_SIZE, continue: pageParam },
        signal,
      }),
    initialPageParam: "",
    getNextPageParam: (last) => last.metadata.continue,
    refetchInterval: LIVE_REFRESH_MS,
    placeholderData: keepPreviousData,
  });
}

/** One plan, polled every PLAN_REFRESH_MS until it is finished. */
export function useRollout(name: string) {
  return useQuery({
    queryKey: rolloutKeys.one(name),
    queryFn: ({ signal }) => api<RolloutView>(rolloutPath(name), { signal }),
    refetchInterval: (query) =>
      query.state.data !== undefined && isFinished(query.state.data) ? false : PLAN_REFRESH_MS,
  });
}

/** After a write the plan's answer is its newest view; lists and the audit log are stale. */
function useAfterWrite() {
  const queryClient = useQueryClient();
  return (view?: RolloutView) => {
    if (view !== undefined) queryClient.setQueryData(rolloutKeys.one(view.name), view);
    return Promise.all([
      queryClient.invalidateQueries({ queryKey: rolloutKeys.all }),
      queryClient.invalidateQueries({ queryKey: ["audit"] }),
    ]);
  };
}

export function useCreateRollout() {
  const afterWrite = useAfterWrite();
  return useMutation({
    mutationFn: (body: RolloutCreateBody) => api<RolloutView>("/api/v1/rollouts", { method: "POST", body }),
    onSuccess: (view) => afterWrite(view),
  });
}

export type SpecAction = "pause" | "resume" | "abort" | "skip-bake";

/** Pause, resume, abort or skip the current wave's bake: the API sets the spec field. */
export function useSpecAction(name: string) {
  const afterWrite = useAfterWrite();
  return useMutation({
    mutationFn: (action: SpecAction) =>
      api<RolloutView>(`${rolloutPath(name)}/${action}`, { method: "POST" }),
    onSuccess: (view) => afterWrite(view),
  });
}

/**
 * Approve or reject a plan awaiting approval, with an optional comment; `spec` is the plan as the
 * user read it (the API refuses the decision, 409, when the plan changed since).
 */
export function useDecision(name: string) {
  const afterWrite = useAfterWrite();
  return useMutation({
    mutationFn: ({
      decision,
      comment,
      spec,
    }: {
      decision: "approve" | "reject";
      comment: string;
      spec: RolloutView["spec"];
    }) =>
      api<RolloutView>(`${rolloutPath(name)}/${decision}`, {
        method: "POST",
        body: { spec, ...(comment.trim() === "" ? {} : { comment: comment.trim() }) },
      }),
    onSuccess: (view) => afterWrite(view),
  });
}

export function useDeleteRollout() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api<unknown>(rolloutPath(name), { method: "DELETE" }),
    onSuccess: (_answer, name) => {
      queryClient.removeQueries({ queryKey: rolloutKeys.one(name) });
      return Promise.all([
        queryClient.invalidateQueries({ queryKey: rolloutKeys.all }),
        queryClient.invalidateQueries({ queryKey: ["audit"] }),
      ]);
    },
  });
}
