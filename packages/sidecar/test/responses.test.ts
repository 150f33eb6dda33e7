import { describe, expect, it } from "vitest";
import type { EvaluationContext } from "@openfeature/core";
import {
  clientErrorAnswer,
  CompiledRules,
  errorResponse,
  ofrepEvaluation,
  ofrepSingle,
  renderFlag,
  renderFlagList,
  renderOfrepBulk,
} from "../src/responses.ts";
import { etagOf } from "../src/ofrep.ts";

const rules = new CompiledRules(10);

function header(headers: string[], name: string): string | undefined {
  const index = headers.findIndex((h, i) => i % 2 === 0 && h.toLowerCase() === name.toLowerCase());
  return index === -1 ? undefined : headers[index + 1];
}

describe("renderFlag", () => {
  const enabled = renderFlag(
    {
      name: "colour",
      key: "colour",
      type: "string",
      value: "blåu",
      disabled: false,
    },
    rules,
  );

  it("renders the flag object, the raw value and the OFREP evaluation once", () => {
    expect(JSON.parse(enabled.json)).toEqual({
      name: "colour",
      type: "string",
      value: "blåu",
      disabled: false,
    });
    expect(enabled.object.status).toBe(200);
    expect(enabled.object.body.toString()).toBe(enabled.json);
    expect(enabled.value).toMatchObject({ status: 200 });
    expect(enabled.value.body.toString()).toBe("blåu");
    expect(header(enabled.value.headers, "content-type")).toBe("text/plain; charset=utf-8");
    // Content-Length counts bytes, not characters.
    expect(header(enabled.value.headers, "content-length")).toBe("5");
    expect(JSON.parse(enabled.ofrepStatic?.response.body.toString() ?? "")).toEqual({
      key: "colour",
      reason: "STATIC",
      value: "blåu",
      variant: "default",
      metadata: {},
    });
  });

  it("withdraws the raw value of a disabled flag (404 {error}) but keeps it in the object", () => {
    const disabled = renderFlag(
      {
        name: "colour",
        key: "colour",
        type: "string",
        value: "blue",
        disabled: true,
      },
      rules,
    );
    expect(disabled.value.status).toBe(404);
    expect(JSON.parse(disabled.value.body.toString())).toEqual({ error: "flag colour is disabled" });
    expect(JSON.parse(disabled.object.body.toString())).toMatchObject({ value: "blue", disabled: true });
    expect(JSON.parse(disabled.ofrepStatic?.response.body.toString() ?? "")).toEqual({
      key: "colour",
      reason: "DISABLED",
      metadata: {},
    });
  });
});

describe("renderFlag of a targeted flag", () => {
  const tiered = {
    name: "tiered",
    key: "Tiered.Flag",
    type: "string" as const,
    value: "basic",
    disabled: false,
    variants: { basic: "basic", pro: "pro" },
    defaultVariant: "basic",
    targeting: { if: [{ in: ["pro", { var: "plan" }] }, "pro"] },
  };

  it("has no precomputed OFREP answer and is evaluated per context; disabled, it is static again", () => {
    const entry = { flag: tiered, ...renderFlag(tiered, rules) };
    expect(entry.ofrepStatic).toBeUndefined();
    expect(JSON.parse(ofrepSingle(entry, { plan: "pro-yearly" }).body.toString())).toMatchObject({
      key: "Tiered.Flag",
      value: "pro",
      reason: "TARGETING_MATCH",
    });
    expect(JSON.parse(ofrepEvaluation(entry, {}).text)).toMatchObject({ value: "basic", reason: "DEFAULT" });
    expect(renderFlag({ ...tiered, disabled: true }, rules).ofrepStatic?.evaluation.text).toBe(
      '{"key":"Tiered.Flag","reason":"DISABLED","metadata":{}}',
    );
  });
});

describe("ofrepSingle of a targeted flag", () => {
  const plans = {
    name: "plans",
    key: "plans",
    type: "integer" as const,
    value: "1",
    disabled: false,
    variants: { one: "1", big: "9223372036854775807" },
    defaultVariant: "one",
    targeting: {
      if: [{ "==": [{ var: "tier" }, "pro"] }, "big", { "==": [{ var: "tier" }, "x"] }, "absent"],
    },
  };

  it("renders each reason and variant's answer once, and answers every context as flagd-core does", () => {
    const entry = { flag: plans, ...renderFlag(plans, new CompiledRules(10)) };
    const fresh = new CompiledRules(10);
    const tiers = ["pro", "free", "x", "pro", undefined, "free", "x"];
    for (const tier of tiers) {
      const context: EvaluationContext = tier === undefined ? {} : { tier };
      // A new flag entry each time: nothing kept, rendered from flagd-core's evaluation.
      const rendered = ofrepEvaluation({ flag: plans, ...renderFlag(plans, fresh) }, context);
      const answer = ofrepSingle(entry, context);
      expect({ status: answer.status, text: answer.body.toString() }).toEqual(rendered);
    }
    expect(ofrepSingle(entry, { tier: "pro" })).toBe(ofrepSingle(entry, { tier: "pro", other: 1 }));
    expect(ofrepSingle(entry, {})).toBe(ofrepSingle(entry, { tier: "free" }));
    // A failure (a rule naming a variant the flag lacks) is not kept: its details may differ.
    expect(ofrepSingle(entry, { tier: "x" }).status).toBe(400);
    expect(ofrepSingle(entry, { tier: "x" })).not.toBe(ofrepSingle(entry, { tier: "x" }));
  });
});

describe("CompiledRules", () => {
  const flag = (i: number) => ({
    name: `f${i}`,
    key: `f${i}`,
    type: "string" as const,
    value: "a",
    disabled: false,
    variants: { a: "a", b: "b" },
    defaultVariant: "a",
    targeting: { fractional: [["a"], ["b"]] },
  });

  it("compiles a targeted flag on its first evaluation and keeps only the most recently evaluated", () => {
    const bounded = new CompiledRules(2);
    const entries = [0, 1, 2].map((i) => ({ flag: flag(i), ...renderFlag(flag(i), bounded) }));
    expect(bounded.size).toBe(0);
    const answers = entries.map((entry) => ofrepEvaluation(entry, { targetingKey: "user-7" }).text);
    expect(bounded.size).toBe(2);
    // Evicted or kept, a flag answers alike (fractional buckets by key and targetingKey).
    expect(entries.map((entry) => ofrepEvaluation(entry, { targetingKey: "user-7" }).text)).toEqual(answers);
    const first = flag(0);
    expect(bounded.of(first)).toBe(bounded.of(first));
    bounded.forget(first);
    expect(bounded.size).toBe(1);
  });

  it("keeps no more for a scan (a bulk evaluation) past its capacity", () => {
    const bounded = new CompiledRules(1);
    const flags = [0, 1, 2].map(flag);
    for (const each of flags) ofrepEvaluation({ flag: each, ...renderFlag(each, bounded) }, {}, true);
    expect(bounded.size).toBe(1);
    const [first] = flags as [ReturnType<typeof flag>];
    expect(bounded.of(first, false)).toBe(bounded.of(first));
  });
});

describe("whole-namespace responses", () => {
  const a = renderFlag({ name: "a", key: "a", type: "boolean", value: "true", disabled: false }, rules);
  const b = renderFlag({ name: "b", key: "b", type: "integer", value: "7", disabled: true }, rules);

  it("lists flag objects as a JSON array", () => {
    expect(JSON.parse(renderFlagList([a, b]).body.toString())).toEqual([
      { name: "a", type: "boolean", value: "true", disabled: false },
      { name: "b", type: "integer", value: "7", disabled: true },
    ]);
    expect(renderFlagList([]).body.toString()).toBe("[]");
  });

  it("gives the OFREP bulk body an ETag header equal to its content's tag", () => {
    const { response, etag } = renderOfrepBulk([a, b].map((flag) => flag.ofrepStatic?.evaluation.text ?? ""));
    expect(header(response.headers, "etag")).toBe(etag);
    expect(etag).toBe(etagOf(response.body));
    expect(JSON.parse(response.body.toString())).toEqual({
      flags: [
        { key: "a", reason: "STATIC", value: true, variant: "default", metadata: {} },
        { key: "b", reason: "DISABLED", metadata: {} },
      ],
      eventStreams: [{ type: "sse", endpoint: { requestUri: "/ofrep/v1/events" } }],
    });
  });

  it("renders errors as {error}", () => {
    const response = errorResponse(405, "no", ["Allow", "GET"]);
    expect(response.status).toBe(405);
    expect(JSON.parse(response.body.toString())).toEqual({ error: "no" });
    expect(header(response.headers, "allow")).toBe("GET");
  });
});

describe("clientErrorAnswer", () => {
  const parse = (answer: string) => {
    const [head = "", body = ""] = answer.split("\r\n\r\n");
    return { head, body: JSON.parse(body) as unknown, length: Buffer.byteLength(body) };
  };

  it("answers what node:http's parser refuses with its status and a JSON {error}, then closes", () => {
    const cases = [
      [{ code: "HPE_INVALID_METHOD", message: "Parse Error: Invalid method encountered" }, "400 Bad Request"],
      [
        { code: "HPE_HEADER_OVERFLOW", message: "Parse Error: Header overflow" },
        "431 Request Header Fields Too Large",
      ],
      [{ code: "ERR_HTTP_REQUEST_TIMEOUT", message: "" }, "408 Request Timeout"],
    ] as const;
    for (const [error, status] of cases) {
      const { head, body, length } = parse(clientErrorAnswer(error));
      expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status}\r\n`));
      expect(head).toContain("\r\nContent-Type: application/json; charset=utf-8\r\n");
      expect(head).toContain(`\r\nContent-Length: ${length}\r\n`);
      expect(head).toMatch(/\r\nConnection: close$/);
      expect(body).toEqual({ error: expect.any(String) as string });
    }
  });
});
