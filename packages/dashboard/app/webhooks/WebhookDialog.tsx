import { WEBHOOK_NAME_MAX, WEBHOOK_URL_MAX, type CreatedWebhook, type WebhookView } from "@svc/core/browser";
import { useId, type ReactNode } from "react";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { Field } from "../ui/Field.tsx";
import { FormDialog } from "../ui/FormDialog.tsx";
import { NotSent } from "../ui/NotSent.tsx";
import { WEBHOOK_EVENTS, WEBHOOK_FORMATS, type WebhookFormat } from "./queries.ts";
import { useWebhookDialog, type WebhookField } from "./useWebhookDialog.ts";
import { formReady, type WebhookForm } from "./webhook-form.ts";

/** What each part of the form reads and changes. */
interface WebhookPartProps {
  form: WebhookForm;
  set: (change: Partial<WebhookForm>) => void;
  problem: (field: WebhookField) => string | undefined;
}

/** Its name and where it sends. */
function AddressFields({ form, set, problem }: WebhookPartProps) {
  return (
    <>
      <Field label="Name" hint="For people: what the webhook is for." problem={problem("name")}>
        {(control) => (
          <input
            {...control}
            required
            maxLength={WEBHOOK_NAME_MAX}
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
            maxLength={WEBHOOK_URL_MAX}
            autoComplete="off"
            value={form.url}
            onChange={(e) => {
              set({ url: e.target.value });
            }}
          />
        )}
      </Field>
    </>
  );
}

/** The events it subscribes to. */
function EventChoice({ form, set, problem }: WebhookPartProps) {
  const eventsProblemId = useId();
  return (
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
  );
}

/** Which clusters' and namespaces' events it sends, and in what format. */
function FilterFields({ form, set, problem }: WebhookPartProps) {
  return (
    <>
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
    </>
  );
}

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
  const { open, onOpenChange, submit, form, set, problem, bodyProblem, shownByField, mutation } =
    useWebhookDialog({
      webhook,
      onCreated,
      onSaved,
    });
  const title = webhook === undefined ? "New webhook" : `Edit webhook ${webhook.name}`;
  return (
    <FormDialog
      trigger={trigger}
      title={title}
      description="svc POSTs a signed request to this URL for each event it subscribes to."
      open={open}
      onOpenChange={onOpenChange}
      onSubmit={submit}
      submitLabel={webhook === undefined ? ["Create webhook", "Creating…"] : ["Save webhook", "Saving…"]}
      pending={mutation.isPending}
      canSubmit={formReady(form)}
    >
      <AddressFields form={form} set={set} problem={problem} />
      <EventChoice form={form} set={set} problem={problem} />
      <FilterFields form={form} set={set} problem={problem} />
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
      <NotSent reasons={bodyProblem === undefined ? [] : [bodyProblem]} />
      {!shownByField && <ErrorMessage error={mutation.error} />}
    </FormDialog>
  );
}
