import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, LIVE_REFRESH_MS } from "../api/client.ts";

import type {
  CreatedWebhook,
  WebhookBody,
  WebhookDeliveryPage,
  WebhookTestResult,
  WebhookView,
} from "@svc/core/browser";

export {
  WEBHOOK_EVENTS,
  WEBHOOK_FORMATS,
  type WebhookEventType,
  type WebhookFormat,
} from "@svc/core/browser";

/**
 * POST and PUT /api/v1/webhooks[/{id}] as the form sends them: every field (a PUT replaces the
 * webhook), never a secret (made up on creation, kept on a PUT).
 */
export type WebhookFormBody = Required<Omit<WebhookBody, "secret">>;

/** Deliveries asked for per page: the recent ones, and as many more on "Show more". */
export const DELIVERY_PAGE_SIZE = 20;

export const webhookPath = (id: string) => `/api/v1/webhooks/${encodeURIComponent(id)}`;

export const webhookKeys = {
  all: ["webhooks"] as const,
  one: (id: string) => ["webhooks", "one", id] as const,
  deliveries: (id: string) => ["webhooks", "deliveries", id] as const,
  last: (id: string) => ["webhooks", "last", id] as const,
};

/** Every webhook; refreshed so others' changes appear without a reload. */
export function useWebhooks() {
  return useQuery({
    queryKey: webhookKeys.all,
    queryFn: ({ signal }) => api<WebhookView[]>("/api/v1/webhooks", { signal }),
    refetchInterval: LIVE_REFRESH_MS,
  });
}

export function useWebhook(id: string) {
  return useQuery({
    queryKey: webhookKeys.one(id),
    queryFn: ({ signal }) => api<WebhookView>(webhookPath(id), { signal }),
    refetchInterval: LIVE_REFRESH_MS,
  });
}

/** A webhook's newest delivery (the list's "last delivery" column), or undefined before any. */
export function useLastDelivery(id: string) {
  return useQuery({
    queryKey: webhookKeys.last(id),
    queryFn: async ({ signal }) =>
      (await api<WebhookDeliveryPage>(`${webhookPath(id)}/deliveries`, { query: { limit: 1 }, signal }))
        .items[0] ?? null,
    refetchInterval: LIVE_REFRESH_MS,
  });
}

/**
 * A webhook's delivery log, newest first, a page at a time (more on request, by `beforeId`);
 * every loaded page is polled, so new deliveries and their outcomes appear without a reload.
 */
export function useDeliveryPages(id: string) {
  return useInfiniteQuery({
    queryKey: webhookKeys.deliveries(id),
    queryFn: ({ pageParam, signal }) =>
      api<WebhookDeliveryPage>(`${webhookPath(id)}/deliveries`, {
        query: { limit: DELIVERY_PAGE_SIZE, beforeId: pageParam },
        signal,
      }),
    initialPageParam: undefined as number | undefined,
    getNextPageParam: (last) => last.nextBeforeId,
    refetchInterval: LIVE_REFRESH_MS,
  });
}

/** After any webhook change its views are stale, and so is the audit log that records it. */
function useInvalidateWebhooks() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: webhookKeys.all }),
      queryClient.invalidateQueries({ queryKey: ["audit"] }),
    ]);
}

export function useCreateWebhook() {
  const invalidate = useInvalidateWebhooks();
  return useMutation({
    mutationFn: (body: WebhookFormBody) => api<CreatedWebhook>("/api/v1/webhooks", { method: "POST", body }),
    onSuccess: invalidate,
  });
}

export function useUpdateWebhook() {
  const invalidate = useInvalidateWebhooks();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: WebhookFormBody }) =>
      api<WebhookView>(webhookPath(id), { method: "PUT", body }),
    onSuccess: invalidate,
  });
}

export function useDeleteWebhook() {
  const invalidate = useInvalidateWebhooks();
  return useMutation({
    mutationFn: (id: string) => api<{ message: string }>(webhookPath(id), { method: "DELETE" }),
    onSuccess: invalidate,
  });
}

/** Sends a signed test event now; the answer says how the receiver answered. */
export function useTestWebhook(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api<WebhookTestResult>(`${webhookPath(id)}/test`, { method: "POST" }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["audit"] }),
  });
}
