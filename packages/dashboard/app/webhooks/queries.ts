import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, LIVE_REFRESH_MS } from "../api/client.ts";

import type { WebhookEventType, WebhookFormat } from "@svc/core/browser";

export {
  WEBHOOK_EVENTS,
  WEBHOOK_FORMATS,
  type WebhookEventType,
  type WebhookFormat,
} from "@svc/core/browser";

/** A webhook as the API shows it: never its secret. */
export interface WebhookView {
  id: string;
  name: string;
  url: string;
  events: WebhookEventType[];
  clusters: string[];
  namespaces: string[];
  format: WebhookFormat;
  /** false: paused, nothing is enqueued for it and its pending deliveries wait. */
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

/** POST and PUT /api/v1/webhooks[/{id}]: a PUT replaces every field; the secret is kept. */
export interface WebhookBody {
  name: string;
  url: string;
  events: WebhookEventType[];
  clusters: string[];
  namespaces: string[];
  format: WebhookFormat;
  enabled: boolean;
}

/** The creation's answer: the only one that carries the secret. */
export type CreatedWebhook = WebhookView & { secret: string };

export interface DeliveryView {
  id: number;
  /** The idempotency key (header svc-event-id). */
  eventId: string;
  eventType: string;
  state: "pending" | "delivered" | "failed";
  attempts: number;
  createdAt: string;
  nextAttemptAt: string;
  lastStatus: number | null;
  lastError: string;
  completedAt: string | null;
}

export interface DeliveryPage {
  items: DeliveryView[];
  /** The `beforeId` of the next older page; absent on the last page. */
  nextBeforeId?: number;
}

/** How the receiver answered a test send. */
export interface TestResult {
  ok: boolean;
  status: number | null;
  error: string;
  durationMs: number;
}

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
      (await api<DeliveryPage>(`${webhookPath(id)}/deliveries`, { query: { limit: 1 }, signal })).items[0] ??
      null,
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
      api<DeliveryPage>(`${webhookPath(id)}/deliveries`, {
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
    mutationFn: (body: WebhookBody) => api<CreatedWebhook>("/api/v1/webhooks", { method: "POST", body }),
    onSuccess: invalidate,
  });
}

export function useUpdateWebhook() {
  const invalidate = useInvalidateWebhooks();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: WebhookBody }) =>
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
    mutationFn: () => api<TestResult>(`${webhookPath(id)}/test`, { method: "POST" }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["audit"] }),
  });
}
