// Variants and targeting in the flag form, in a real Chromium against the real API and control
// plane: a 25 % rollout built with the slider answers in the try-a-context panel what flagd's
// engine answers, is saved as flagd's `fractional`, reads back at 25 % and is marked in the list;
// an invalid JSON Logic rule is shown next to the rule (syntax at once, the rest by the API) and
// is never saved.
import { compileFlag, evaluateFlag, type EvaluatedSpec } from "@svc/core/targeting/flagd";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDashboardHarness, type DashboardHarness } from "./support/harness.ts";

let h: DashboardHarness;

beforeAll(async () => {
  h = await startDashboardHarness("dash-target");
});

afterAll(async () => {
  await h.close();
});

const exists = (name: string) =>
  h.featureFlag(name).then(
    () => true,
    () => false,
  );

async function newFlagForm(name: string): Promise<Page> {
  const page = await h.newPage();
  await h.login(page, "editor");
  await page.goto(`${h.url}/flags/new?cluster=${h.clusterId}&namespace=${h.namespace}`);
  await page.getByLabel("Name", { exact: true }).waitFor();
  await expect.poll(() => page.getByLabel("Namespace", { exact: true }).inputValue()).toBe(h.namespace);
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByLabel("Label key 1").fill("app");
  await page.getByLabel("Label value 1").fill("shop");
  return page;
}

/**
 * The first targetingKeys that flagd's engine puts in the `on` and in the `off` bucket, each
 * with its answer as the try-a-context panel shows it: "value variant reason".
 */
function keysOnAndOff(
  flagKey: string,
  spec: EvaluatedSpec,
): Record<"on" | "off", { key: string; answer: string }> {
  const compiled = compileFlag(flagKey, spec, true);
  const found: Partial<Record<string, { key: string; answer: string }>> = {};
  for (let i = 0; found["on"] === undefined || found["off"] === undefined; i++) {
    const key = `user-${i}`;
    const { value, variant = "", reason } = evaluateFlag(flagKey, compiled, { targetingKey: key });
    found[variant] ??= { key, answer: `${JSON.stringify(value)} ${variant} ${reason}` };
  }
  return { on: found["on"], off: found["off"] };
}

/** The try-a-context panel's answer for a targetingKey: "value variant reason". */
async function tryContext(page: Page, targetingKey: string): Promise<() => Promise<string>> {
  const panel = page.getByRole("region", { name: "Try a context" });
  await panel.getByLabel("targetingKey", { exact: true }).fill(targetingKey);
  return async () => (await panel.getByRole("definition").allTextContents()).join(" ");
}

describe("a percentage rollout", () => {
  const name = "new-checkout";
  const rollout = {
    fractional: [
      ["on", 25],
      ["off", 75],
    ],
  };

  it("is built with the slider, tried in a context, saved as flagd's fractional, and shown in the list", async () => {
    const keys = keysOnAndOff(name, {
      type: "boolean",
      defaultValue: "false",
      variants: { on: "true", off: "false" },
      defaultVariant: "off",
      targeting: rollout,
    });
    console.log(`targetingKeys chosen by flagd-core: on=${keys.on.key} off=${keys.off.key}`);

    const page = await newFlagForm(name);
    await page.getByRole("radio", { name: /Percentage rollout/ }).click();
    // A boolean flag gets on/off variants, the default being its value (off).
    expect(await page.getByLabel("Variant 1 name").inputValue()).toBe("on");
    expect(await page.getByLabel("Variant 2 name").inputValue()).toBe("off");
    const slider = page.getByRole("slider");
    expect(await slider.inputValue()).toBe("0");
    await slider.focus();
    for (let i = 0; i < 25; i++) await slider.press("ArrowRight");
    expect(await slider.inputValue()).toBe("25");
    await page.getByText("25% on, 75% off").waitFor();

    expect([keys.on.answer, keys.off.answer]).toEqual([
      expect.stringMatching(/^true on /),
      expect.stringMatching(/^false off /),
    ]);
    await expect.poll(await tryContext(page, keys.on.key)).toBe(keys.on.answer);
    await expect.poll(await tryContext(page, keys.off.key)).toBe(keys.off.answer);
    await h.screenshot(page, "flag-rollout");
    expect(await exists(name)).toBe(false); // trying wrote nothing

    await page.getByRole("button", { name: "Create flag" }).click();
    await page.getByRole("heading", { name }).waitFor();
    expect((await h.featureFlag(name)).spec).toMatchObject({
      type: "boolean",
      defaultValue: "false",
      variants: { on: "true", off: "false" },
      defaultVariant: "off",
      targeting: rollout,
    });

    await page.goto(`${h.url}/flags?namespace=${h.namespace}&cluster=${h.clusterId}`);
    const row = page.getByRole("row").filter({ has: page.getByRole("link", { name, exact: true }) });
    await row.getByText("25% on").waitFor();
    expect(await row.getByRole("cell").nth(4).textContent()).toBe("false25% on"); // value, then the badge
    await h.screenshot(page, "flags-list-rollout");

    // Read back: the edit form shows the slider at the flag's share.
    await page.goto(`${h.url}/flags/${h.clusterId}/${h.namespace}/${name}/edit`);
    await expect.poll(() => page.getByRole("slider").inputValue()).toBe("25");
    await page.close();
  });
});

describe("a JSON Logic rule", () => {
  it("shows a syntax error at once and the API's refusal of the rule inline; neither is saved", async () => {
    const name = "bad-rule";
    const page = await newFlagForm(name);
    await page.getByRole("radio", { name: /JSON Logic rule/ }).click();
    const rule = page.getByLabel("Targeting rule (JSON Logic)");
    const problem = async () => {
      const id = ((await rule.getAttribute("aria-describedby")) ?? "").split(" ")[1] ?? "";
      return (await page.locator(`[id="${id}"]`).count()) === 0
        ? ""
        : await page.locator(`[id="${id}"]`).textContent();
    };
    // The form starts from an example rule over the flag's variants, which the API accepts.
    await page.getByText("The API accepts this rule.").waitFor();

    await rule.fill('{"if": [{"in": [{"var": "targetingKey"}, ["alice"]]}, "on",');
    expect(await rule.getAttribute("aria-invalid")).toBe("true");
    expect(await problem()).toMatch(/^targeting: not valid JSON/);
    await page.getByRole("button", { name: "Create flag" }).click();
    await page.getByText("Some fields need attention").waitFor();

    // Valid JSON, but a variant the flag does not have: the API names the field.
    await rule.fill('{"if": [{"in": [{"var": "targetingKey"}, ["alice"]]}, "maybe", "off"]}');
    await expect.poll(problem).toMatch(/targeting.*maybe/);
    await h.screenshot(page, "flag-rule-invalid");
    // The live preview's alert already names "maybe": wait for the create's own answer, not it
    // (until then the button reads "Saving…").
    const created = page.waitForResponse((reply) => {
      const url = new URL(reply.url());
      return (
        reply.request().method() === "POST" &&
        url.pathname === "/api/v1/flags" &&
        !url.searchParams.has("dryRun")
      );
    });
    await page.getByRole("button", { name: "Create flag" }).click();
    expect((await created).status()).toBe(400);
    await expect
      .poll(() => page.getByRole("alert").allTextContents())
      .toContainEqual(expect.stringMatching(/maybe/));
    expect(await page.getByRole("button", { name: "Create flag" }).isVisible()).toBe(true);
    expect(await exists(name)).toBe(false);
    await page.close();
  });
});
