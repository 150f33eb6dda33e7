import type { WebhookTestResult, WebhookView } from "@svc/core/browser";
import { useState } from "react";
import { Link, useParams } from "react-router";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { PageHeader } from "../ui/PageHeader.tsx";
import { QueryState } from "../ui/states.tsx";
import { relativeTime } from "../ui/time.ts";
import { DeliveryLog } from "./DeliveryLog.tsx";
import { useTestWebhook, useWebhook } from "./queries.ts";
import { WebhookDialog } from "./WebhookDialog.tsx";
import { AdminOnly } from "./WebhooksPage.tsx";

function answerText(result: WebhookTestResult): string {
  const status = result.status === null ? "no HTTP answer" : `HTTP ${result.status}`;
  const error = result.error === "" ? "" : `: ${result.error}`;
  return `${result.ok ? "Delivered" : "Not delivered"} — the receiver answered ${status} in ${result.durationMs} ms${error}`;
}

/** "Send test": a signed webhook.test event sent now, and how the receiver answered. */
function SendTest({ id }: { id: string }) {
  const test = useTestWebhook(id);
  return (
    <div className="toolbar">
      <button
        type="button"
        disabled={test.isPending}
        onClick={() => {
          test.mutate();
        }}
      >
        {test.isPending ? "Sending…" : "Send test"}
      </button>
      <p
        role="status"
        aria-live="polite"
        className={test.data?.ok === false ? "error" : test.data === undefined ? "hint" : "success"}
      >
        {test.data === undefined ? "" : answerText(test.data)}
      </p>
      <ErrorMessage error={test.error} />
    </div>
  );
}

function Facts({ webhook }: { webhook: WebhookView }) {
  const all = (list: string[], what: string) => (list.length === 0 ? `all ${what}` : list.join(", "));
  return (
    <dl className="facts card">
      <dt>URL</dt>
      <dd className="mono">{webhook.url}</dd>
      <dt>Events</dt>
      <dd>{webhook.events.join(", ")}</dd>
      <dt>Clusters</dt>
      <dd>{all(webhook.clusters, "clusters")}</dd>
      <dt>Namespaces</dt>
      <dd>{all(webhook.namespaces, "namespaces")}</dd>
      <dt>Format</dt>
      <dd>{webhook.format}</dd>
      <dt>Deliveries</dt>
      <dd>{webhook.enabled ? "active" : "paused: nothing is sent; pending deliveries wait until resumed"}</dd>
      <dt>Secret</dt>
      <dd className="hint">shown once, at creation; never again</dd>
      <dt>Updated</dt>
      <dd title={new Date(webhook.updatedAt).toLocaleString()}>{relativeTime(webhook.updatedAt)}</dd>
    </dl>
  );
}

function WebhookDetail() {
  const { id = "" } = useParams();
  const webhook = useWebhook(id);
  const [status, setStatus] = useState<string>();
  return (
    <QueryState query={webhook} what="the webhook">
      {(w) => (
        <>
          <PageHeader
            title={`Webhook ${w.name}`}
            actions={
              <WebhookDialog webhook={w} onSaved={setStatus} trigger={<button type="button">Edit</button>} />
            }
          />
          <p>
            <Link to="/webhooks">All webhooks</Link>
          </p>
          <p className="success" role="status">
            {status}
          </p>
          <Facts webhook={w} />
          <h2>Test</h2>
          <SendTest id={w.id} />
          <h2>Recent deliveries</h2>
          <DeliveryLog webhookId={w.id} />
        </>
      )}
    </QueryState>
  );
}

export function WebhookPage() {
  return (
    <AdminOnly>
      <WebhookDetail />
    </AdminOnly>
  );
}
