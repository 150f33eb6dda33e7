import type { CreatedWebhook } from "@svc/core/browser";
import { useState, type ReactNode } from "react";
import { Link } from "react-router";
import { RequireAccess } from "../session/RequireAccess.tsx";
import { PageHeader } from "../ui/PageHeader.tsx";
import { EmptyState, QueryState } from "../ui/states.tsx";
import { useWebhooks } from "./queries.ts";
import { SecretOnce } from "./SecretOnce.tsx";
import { WebhookDialog } from "./WebhookDialog.tsx";
import { WebhookRow } from "./WebhookRow.tsx";

/** Admins only, as the API's access table says: any other role is told so and fetches nothing. */
export function AdminOnly({ children }: { children: ReactNode }) {
  return (
    <RequireAccess
      route="GET /api/v1/webhooks"
      action="manage webhooks"
      back={<Link to="/flags">Go to the flags</Link>}
    >
      {children}
    </RequireAccess>
  );
}

function WebhookList() {
  const webhooks = useWebhooks();
  const [status, setStatus] = useState<string>();
  const [created, setCreated] = useState<CreatedWebhook>();
  return (
    <>
      <PageHeader
        title="Webhooks"
        actions={
          <WebhookDialog
            onCreated={setCreated}
            trigger={
              <button type="button" className="primary">
                New webhook
              </button>
            }
          />
        }
      />
      {created !== undefined && (
        <SecretOnce
          created={created}
          onDone={() => {
            setCreated(undefined);
          }}
        />
      )}
      <p className="success" role="status">
        {status}
      </p>
      <QueryState query={webhooks} what="webhooks">
        {(list) =>
          list.length === 0 ? (
            <EmptyState title="No webhooks">
              <p>A webhook tells another system (a chat channel, a CI job) when flags change.</p>
            </EmptyState>
          ) : (
            <div className="table-wrap">
              <table aria-label="Webhooks">
                <thead>
                  <tr>
                    <th scope="col">Webhook</th>
                    <th scope="col">Deliveries</th>
                    <th scope="col">URL</th>
                    <th scope="col">Events</th>
                    <th scope="col">Filters</th>
                    <th scope="col">Format</th>
                    <th scope="col">Last delivery</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((webhook) => (
                    <WebhookRow key={webhook.id} webhook={webhook} onDone={setStatus} />
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryState>
    </>
  );
}

export function WebhooksPage() {
  return (
    <AdminOnly>
      <WebhookList />
    </AdminOnly>
  );
}
