// The webhook form: the body it sends and what it refuses before sending, the API's schema of
// the body included (compiled ahead of time, @svc/core/browser).
import { WebhookBody } from "@svc/core";
import Compile from "typebox/compile";
import { describe, expect, it } from "vitest";
import {
  bodyOf,
  EMPTY_WEBHOOK_FORM,
  formProblems,
  formReady,
  type WebhookForm,
} from "../app/webhooks/webhook-form.ts";

const valid: WebhookForm = {
  ...EMPTY_WEBHOOK_FORM,
  name: "ops",
  url: "https://hooks.example/svc",
  clusters: "a, b",
};

describe("the webhook form", () => {
  it("sends a body the API's schema takes, and finds nothing wrong with it", () => {
    expect(Compile(WebhookBody).Check(bodyOf(valid))).toBe(true);
    expect(formProblems(valid)).toEqual({});
    expect(formReady(valid)).toBe(true);
  });

  it("says nothing of a name or URL not typed yet, and is not ready", () => {
    expect(formProblems(EMPTY_WEBHOOK_FORM)).toEqual({});
    expect(formReady(EMPTY_WEBHOOK_FORM)).toBe(false);
  });

  it("refuses a body the API's schema refuses, under the field it names", () => {
    // 101 clusters, one over the schema's 100, and a namespace over its 253 characters.
    const form = {
      ...valid,
      clusters: Array.from({ length: 101 }, (_, i) => `c${i}`).join(", "),
      namespaces: "n".repeat(254),
    };
    expect(Compile(WebhookBody).Check(bodyOf(form))).toBe(false);
    expect(formProblems(form)).toEqual({
      clusters:
        "clusters: refused by the API's schema: at most 100 items, none twice; each 1 to 253 characters",
      namespaces:
        "namespaces: refused by the API's schema: at most 100 items, none twice; each 1 to 253 characters",
    });
    expect(formReady(form)).toBe(false);
  });
});
