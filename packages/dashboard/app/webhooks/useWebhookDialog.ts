import type { CreatedWebhook, WebhookView } from "@svc/core/browser";
import { useState } from "react";
import { errorForField } from "../api/client.ts";
import { useCreateWebhook, useUpdateWebhook } from "./queries.ts";
import { bodyOf, EMPTY_WEBHOOK_FORM, formOf, formProblems, type WebhookForm } from "./webhook-form.ts";

const FIELDS = ["name", "url", "events", "clusters", "namespaces", "format", "enabled"] as const;
/** A field of the form, by the API's name for it. */
export type WebhookField = (typeof FIELDS)[number];

/**
 * The webhook dialog's state: open or not, the form (reset from `webhook` on opening), its
 * problems (the browser's, else the API's for the field), and the create or update request.
 */
export function useWebhookDialog({
  webhook,
  onCreated,
  onSaved,
}: {
  webhook: WebhookView | undefined;
  onCreated: ((created: CreatedWebhook) => void) | undefined;
  onSaved: ((message: string) => void) | undefined;
}) {
  const [open, setOpen] = useState(false);
  const [form, setForm] = useState<WebhookForm>(EMPTY_WEBHOOK_FORM);
  const create = useCreateWebhook();
  const update = useUpdateWebhook();
  const mutation = webhook === undefined ? create : update;
  const set = (change: Partial<WebhookForm>) => {
    setForm((current) => ({ ...current, ...change }));
  };

  const local = formProblems(form);
  const problem = (field: WebhookField) => local[field] ?? errorForField(mutation.error, field);
  /** The API's schema refuses the body as a whole, for no one field (not sent then). */
  const bodyProblem = local[""];
  const shownByField = FIELDS.some((field) => errorForField(mutation.error, field) !== undefined);

  const onOpenChange = (next: boolean) => {
    setOpen(next);
    if (next) setForm(webhook === undefined ? EMPTY_WEBHOOK_FORM : formOf(webhook));
    create.reset();
    update.reset();
  };
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

  return { open, onOpenChange, submit, form, set, problem, bodyProblem, shownByField, mutation };
}
