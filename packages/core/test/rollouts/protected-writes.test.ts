// Direct flag writes on a protected cluster (issue 37, item 4): who may, with what reason.
import { describe, expect, it } from "vitest";
import {
  DIRECT_WRITES,
  directWriteDecision,
  OVERRIDE_REASON_HEADER,
  OVERRIDE_REASON_MAX,
  overrideReason,
  PROTECTED_CLUSTER_LABEL,
  protectedRefusal,
  type DirectWriteInput,
} from "../../src/index.ts";

const input = (more: Partial<DirectWriteInput> = {}): DirectWriteInput => ({
  write: "toggle",
  cluster: { id: "prod", labels: { [PROTECTED_CLUSTER_LABEL]: "true" } },
  flag: { namespace: "shop", name: "checkout" },
  role: "editor",
  overrideHeader: undefined,
  dryRun: false,
  ...more,
});

describe("directWriteDecision", () => {
  it("refuses every direct write of an editor on a protected cluster, naming the plan route", () => {
    for (const write of DIRECT_WRITES) {
      const decision = directWriteDecision(input({ write }));
      expect(decision).toMatchObject({ outcome: "refuse", status: 403 });
      if (decision.outcome !== "refuse") continue;
      expect(decision.error).toMatch(/^cluster prod is protected: /);
      expect(decision.error).toContain("POST /api/v1/rollouts");
      expect(decision.error).toContain("svc flags rollout create shop/checkout");
      expect(decision.error).not.toContain(OVERRIDE_REASON_HEADER);
    }
    const imported = directWriteDecision(input({ write: "import", flag: { namespace: "shop" } }));
    expect(imported.outcome === "refuse" && imported.error).toMatch(
      /^cluster prod is protected: an import of flags into shop is refused; create/,
    );
  });

  it("lets an admin through only with a reason, which it hands back for the audit log", () => {
    const refused = directWriteDecision(input({ role: "admin" }));
    expect(refused).toMatchObject({ outcome: "refuse", status: 403 });
    expect(refused.outcome === "refuse" && refused.error).toContain(`header ${OVERRIDE_REASON_HEADER}`);
    expect(directWriteDecision(input({ role: "admin", overrideHeader: "incident%2042" }))).toEqual({
      outcome: "override",
      reason: "incident 42",
    });
    // A reason does not make an editor an admin.
    const editor = directWriteDecision(input({ overrideHeader: "incident 42" }));
    expect(editor).toMatchObject({ outcome: "refuse", status: 403 });
    expect(editor.outcome === "refuse" && editor.error).toContain("only an admin may override");
    expect(directWriteDecision(input({ role: "viewer", overrideHeader: "x" }))).toMatchObject({
      status: 403,
    });
    expect(directWriteDecision(input({ role: undefined }))).toMatchObject({ status: 403 });
  });

  it('allows dry runs, and every write on a cluster that is not protected (only "true" protects)', () => {
    expect(directWriteDecision(input({ dryRun: true }))).toEqual({ outcome: "allow" });
    const unprotected: Record<string, string>[] = [
      {},
      { [PROTECTED_CLUSTER_LABEL]: "True" },
      { [PROTECTED_CLUSTER_LABEL]: "false" },
    ];
    for (const labels of unprotected)
      expect(directWriteDecision(input({ cluster: { id: "dev", labels } }))).toEqual({ outcome: "allow" });
  });
});

describe("protectedRefusal", () => {
  it("reads the flag and cluster back from the refusal of an update, toggle or delete, and nothing else", () => {
    for (const write of ["update", "toggle", "delete"] as const) {
      const decision = directWriteDecision(input({ write, role: write === "delete" ? "admin" : "editor" }));
      const error = decision.outcome === "refuse" ? decision.error : "";
      expect(protectedRefusal(error)).toEqual({
        clusterId: "prod",
        write,
        namespace: "shop",
        name: "checkout",
      });
    }
    const created = directWriteDecision(input({ write: "create" }));
    expect(protectedRefusal(created.outcome === "refuse" ? created.error : "")).toBeUndefined();
    expect(
      protectedRefusal("role editor may not call DELETE /api/v1/flags/{namespace}/{name}"),
    ).toBeUndefined();
  });
});

describe("overrideReason", () => {
  it("decodes, trims and bounds the reason; refuses what cannot be one with 400 naming the header", () => {
    expect(overrideReason(undefined)).toEqual({ ok: true, reason: undefined });
    expect(overrideReason("  rollback of INC-7 ")).toEqual({ ok: true, reason: "rollback of INC-7" });
    expect(overrideReason(encodeURIComponent("Störung – Kasse"))).toEqual({
      ok: true,
      reason: "Störung – Kasse",
    });
    expect(overrideReason("é".repeat(OVERRIDE_REASON_MAX))).toMatchObject({ ok: true });
    for (const bad of [
      "",
      "   ",
      "%20",
      "x".repeat(OVERRIDE_REASON_MAX + 1),
      "%E0%A4%A",
      "a%0Ab",
      "tab\there",
    ]) {
      const parsed = overrideReason(bad);
      expect(parsed.ok, JSON.stringify(bad)).toBe(false);
      if (!parsed.ok) expect(parsed.error).toMatch(new RegExp(`^${OVERRIDE_REASON_HEADER}: `));
    }
    expect(overrideReason(["a", "b"])).toMatchObject({ ok: false });
    expect(directWriteDecision(input({ role: "admin", overrideHeader: "  " }))).toMatchObject({
      status: 400,
    });
  });
});
