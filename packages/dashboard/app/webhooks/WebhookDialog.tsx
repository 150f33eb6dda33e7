import { useId, useState, type ReactNode } from "react";
import { errorForField } from "../api/client.ts";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { Field } from "../ui/Field.tsx";
import { FormDialog } from "../ui/FormDialog.tsx";
import {
  useCreateWebhook,
  useUpdateWebhook,
  WEBHOOK_EVENTS,
  WEBHOOK_FORMATS,
  type CreatedWebhook,
  type WebhookFormat,
  type WebhookView,
} from "./queries.ts";
import {
  bodyOf,
  EMPTY_WEBHOOK_FORM,
  formOf,
  formProblems,
  formReady,
  type WebhookForm,
} from "./webhook-form.ts";

const FIELDS = ["name", "url", "events", "clusters", "namespaces", "format", "enabled"] as const;

/**
 * "New webhook" (without `webhook`) or "Edit" of one: name, URL, events, filters and format.
 * Problems the browser can tell show as typed; the API's 400 shows under the field it names.
 * A creation hands its answer, secret included, to `onCreated` (the secret is shown once).
 */
export function WebhookDialog({
  webhook,
  trigger,
  onCreated,
  onSaved,
}: {
  webhook?: WebhookView;
  trigger: ReactNode;
  onCreated?: (created: CreatedWebhook) => void;
  onSaved?: (message: string) => void;
}) {
  const [open, setOpen] = useState(false);
  const eventsProblemId = useId();
  const [form, setForm] = useState<WebhookForm>(EMPTY_WEBHOOK_FORM);
  const create = useCreateWebhook();
  const update = useUpdateWebhook();
  const mutation = webhook === undefined ? create : update;
  const set = (change: Partial<WebhookForm>) => {
    setForm((current) => ({ ...current, ...change }));
  };

  const local = formProblems(form);
  const problem = (field: (typeof FIELDS)[number]) =>
    (field === "name" || field === "url" || field === "events" ? local[field] : undefined) ??
    errorForField(mutation.error, field);
  const shownByField = FIELDS.some((field) => errorForField(mutation.error, field) !== undefined);

  const submit = () => {
    const body = bodyOf(form);
    if (webhook === undefined) {
      create.mutate(body, {
        onSuccess: (created) => {
          setOpen(false);
          onCreated?.(created);
        },
      });
    } else {
      update.mutate(
        { id: webhook.id, body },
        {
          onSuccess: (saved) => {
            setOpen(false);
            onSaved?.(`Webhook ${saved.name} saved.`);
          },
        },
      );
    }
  };

  const title = webhook === undefined ? "New webhook" : `Edit webhook ${webhook.name}`;
  return (
    <FormDialog
      trigger={trigger}
      title={title}
      description="svc POSTs a signed request to this URL for each event it subscribes to."
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (next) setForm(webhook === undefined ? EMPTY_WEBHOOK_FORM : formOf(webhook));
        create.reset();
        update.reset();
      }}
      onSubmit={submit}
      submitLabel={webhook === undefined ? ["Create webhook", "Creating…"] : ["Save webhook", "Saving…"]}
      pending={mutation.isPending}
      canSubmit={formReady(form)}
    >
      <Field label="Name" hint="For people: what the webhook is for." problem={problem("name")}>
        {(control) => (
          <input
            {...control}
            required
            maxLength={100}
            value={form.name}
            onChange={(e) => {
              set({ name: e.target.value });
            }}
          />
        )}
      </Field>
      <Field
        label="URL"
        hint="http:// or https://; private and loopback addresses are refused unless allowed."
        problem={problem("url")}
      >
        {(control) => (
          <input
            {...control}
            type="url"
            required
            maxLength={2048}
            autoComplete="off"
            value={form.url}
            onChange={(e) => {
              set({ url: e.target.value });
            }}
          />
        )}
      </Field>
      <fieldset aria-describedby={eventsProblemId} aria-invalid={problem("events") !== undefined}>
        <legend>Events</legend>
        {WEBHOOK_EVENTS.map((event) => (
          <label key={event} className="radio">
            <input
              type="checkbox"
              checked={form.events.includes(event)}
              onChange={(e) => {
                const others = form.events.filter((chosen) => chosen !== event);
                set({ events: e.target.checked ? [...others, event] : others });
              }}
            />
            <code>{event}</code>
          </label>
        ))}
        <span className="field-problem" id={eventsProblemId}>
          {problem("events")}
        </span>
      </fieldset>
      <Field
        label="Clusters"
        hint="Comma-separated cluster ids; empty: every cluster."
        problem={problem("clusters")}
      >
        {(control) => (
          <input
            {...control}
            autoComplete="off"
            value={form.clusters}
            onChange={(e) => {
              set({ clusters: e.target.value });
            }}
          />
        )}
      </Field>
      <Field
        label="Namespaces"
        hint="Comma-separated; empty: every namespace (a cluster's own events always pass)."
        problem={problem("namespaces")}
      >
        {(control) => (
          <input
            {...control}
            autoComplete="off"
            value={form.namespaces}
            onChange={(e) => {
              set({ namespaces: e.target.value });
            }}
          />
        )}
      </Field>
      <Field
        label="Format"
        hint='json: the event; slack: {"text": …} for Slack and Mattermost.'
        problem={problem("format")}
      >
        {(control) => (
          <select
            {...control}
            value={form.format}
            onChange={(e) => {
              set({ format: e.target.value as WebhookFormat });
            }}
          >
            {WEBHOOK_FORMATS.map((format) => (
              <option key={format} value={format}>
                {format}
              </option>
            ))}
          </select>
        )}
      </Field>
      <label className="radio">
        <input
          type="checkbox"
          checked={form.enabled}
          onChange={(e) => {
            set({ enabled: e.target.checked });
          }}
        />
        Active: unchecked, the webhook is paused (nothing is sent; what was pending waits)
      </label>
      {!shownByField && <ErrorMessage error={mutation.error} />}
    </FormDialog>
  );
}
