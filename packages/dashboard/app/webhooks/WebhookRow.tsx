import type { WebhookView } from "@svc/core/browser";
import { Link } from "react-router";
import { ConfirmDialog } from "../ui/ConfirmDialog.tsx";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { relativeTime } from "../ui/time.ts";
import { DeliveryState } from "./DeliveryState.tsx";
import { useDeleteWebhook, useLastDelivery, useUpdateWebhook } from "./queries.ts";
import { WebhookDialog } from "./WebhookDialog.tsx";
import { bodyOf, formOf, originOf } from "./webhook-form.ts";

export const webhookHref = (id: string) => `/webhooks/${encodeURIComponent(id)}`;

function filters(webhook: WebhookView): string {
  const clusters = webhook.clusters.length === 0 ? "all clusters" : webhook.clusters.join(", ");
  const namespaces = webhook.namespaces.length === 0 ? "all namespaces" : webhook.namespaces.join(", ");
  return `${clusters}; ${namespaces}`;
}

function LastDelivery({ id }: { id: string }) {
  const last = useLastDelivery(id);
  if (last.data === undefined) return <span className="hint">…</span>;
  if (last.data === null) return <span className="hint">none yet</span>;
  return (
    <>
      <DeliveryState delivery={last.data} />{" "}
      <span className="hint" title={new Date(last.data.createdAt).toLocaleString()}>
        {last.data.eventType}, {relativeTime(last.data.createdAt)}
      </span>
    </>
  );
}

/** Pauses or resumes deliveries to the webhook (its secret and log stay). */
function PauseToggle({ webhook, onDone }: { webhook: WebhookView; onDone: (message: string) => void }) {
  const update = useUpdateWebhook();
  const next = !webhook.enabled;
  return (
    <>
      <label className="radio">
        <input
          type="checkbox"
          role="switch"
          aria-label={`Active ${webhook.name}`}
          checked={webhook.enabled}
          disabled={update.isPending}
          onChange={() => {
            update.mutate(
              { id: webhook.id, body: { ...bodyOf(formOf(webhook)), enabled: next } },
              {
                onSuccess: (saved) => {
                  onDone(`Webhook ${saved.name} ${saved.enabled ? "resumed" : "paused"}.`);
                },
              },
            );
          }}
        />
        {webhook.enabled ? "active" : "paused"}
      </label>
      <ErrorMessage error={update.error} />
    </>
  );
}

export function WebhookRow({ webhook, onDone }: { webhook: WebhookView; onDone: (message: string) => void }) {
  const remove = useDeleteWebhook();
  return (
    <tr>
      <th scope="row">
        <Link to={webhookHref(webhook.id)} className="strong">
          {webhook.name}
        </Link>
      </th>
      <td>
        <PauseToggle webhook={webhook} onDone={onDone} />
      </td>
      <td className="mono">{originOf(webhook.url)}</td>
      <td>
        {webhook.events.map((event) => (
          <code key={event} className="label-chip">
            {event}
          </code>
        ))}
      </td>
      <td>{filters(webhook)}</td>
      <td>{webhook.format}</td>
      <td>
        <LastDelivery id={webhook.id} />
      </td>
      <td>
        <div className="row-actions">
          <WebhookDialog
            webhook={webhook}
            onSaved={onDone}
            trigger={
              <button type="button" aria-label={`Edit ${webhook.name}`}>
                Edit
              </button>
            }
          />
          <ConfirmDialog
            trigger={
              <button type="button" className="danger-outline" aria-label={`Delete ${webhook.name}`}>
                Delete
              </button>
            }
            title={`Delete webhook ${webhook.name}?`}
            description={
              <p>
                svc stops notifying {originOf(webhook.url)}; its pending deliveries and its delivery log go
                with it. The audit log keeps its history.
              </p>
            }
            confirmLabel="Delete webhook"
            onConfirm={async () => {
              await remove.mutateAsync(webhook.id);
              onDone(`Webhook ${webhook.name} deleted.`);
            }}
          />
        </div>
      </td>
    </tr>
  );
}
