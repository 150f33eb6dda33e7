/** The webhook form as typed, the body it sends, and what is wrong with it before it is sent. */
import {
  schemaRefusals,
  unexplainedRefusals,
  WebhookBodyCheck,
  type WebhookEventType,
  type WebhookFormat,
  type WebhookView,
} from "@svc/core/browser";
import type { WebhookFormBody } from "./queries.ts";

export interface WebhookForm {
  name: string;
  url: string;
  events: readonly WebhookEventType[];
  /** Comma-separated, as typed; empty: every cluster. */
  clusters: string;
  /** Comma-separated, as typed; empty: every namespace. */
  namespaces: string;
  format: WebhookFormat;
  /** Unchecked: paused (receiver maintenance); nothing is sent until checked again. */
  enabled: boolean;
}

export const EMPTY_WEBHOOK_FORM: WebhookForm = {
  name: "",
  url: "",
  events: ["flag.created", "flag.changed", "flag.deleted"],
  clusters: "",
  namespaces: "",
  format: "json",
  enabled: true,
};

export function formOf(webhook: WebhookView): WebhookForm {
  return {
    name: webhook.name,
    url: webhook.url,
    events: webhook.events,
    clusters: webhook.clusters.join(", "),
    namespaces: webhook.namespaces.join(", "),
    format: webhook.format,
    enabled: webhook.enabled,
  };
}

/** "a, b,,c " → ["a", "b", "c"], each once. */
export function listOf(text: string): string[] {
  return [
    ...new Set(
      text
        .split(",")
        .map((item) => item.trim())
        .filter((item) => item !== ""),
    ),
  ];
}

export function bodyOf(form: WebhookForm): WebhookFormBody {
  return {
    name: form.name.trim(),
    url: form.url.trim(),
    events: [...form.events],
    clusters: listOf(form.clusters),
    namespaces: listOf(form.namespaces),
    format: form.format,
    enabled: form.enabled,
  };
}

/** By the API's field names; "" for the body as a whole. */
export type FormProblems = Partial<Record<string, string>>;

/**
 * What can be told without the API (which still checks everything, and alone knows where the
 * URL's host resolves): the URL's scheme, events, and last the API's schema of the body. An
 * empty text field is not a problem until the user typed in it. An edit sends the same body,
 * which the update's schema takes whenever the create's does.
 */
export function formProblems(form: WebhookForm): FormProblems {
  const problems: FormProblems = {};
  const url = form.url.trim();
  if (url !== "") {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      problems["url"] = "url: is not a URL";
    }
    if (parsed !== undefined && parsed.protocol !== "http:" && parsed.protocol !== "https:")
      problems["url"] = "url: must be http:// or https://";
  }
  if (form.events.length === 0) problems["events"] = "events: choose at least one";
  const body = bodyOf(form);
  const untyped = (["name", "url"] as const).filter((field) => body[field] === "");
  const refusals = schemaRefusals(WebhookBodyCheck, body);
  for (const [field, reason] of unexplainedRefusals(refusals, [...Object.keys(problems), ...untyped]))
    problems[field] = field === "" ? reason : `${field}: ${reason}`;
  return problems;
}

export function formReady(form: WebhookForm): boolean {
  return form.name.trim() !== "" && form.url.trim() !== "" && Object.keys(formProblems(form)).length === 0;
}

/** The origin of a URL, what the list shows (a Slack URL's path is itself a secret). */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
