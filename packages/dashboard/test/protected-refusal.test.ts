// A direct write refused on a protected cluster links to a new rollout plan of the flag.
import { describe, expect, it } from "vitest";
import { directWriteDecision, PROTECTED_CLUSTER_LABEL } from "@svc/core";
import { ApiError } from "../app/api/client.ts";
import { planLinkOf } from "../app/ui/plan-link.ts";

const refusal = (write: "toggle" | "update" | "create") => {
  const decision = directWriteDecision({
    write,
    cluster: { id: "prod", labels: { [PROTECTED_CLUSTER_LABEL]: "true" } },
    flag: { namespace: "shop", name: "new-checkout" },
    role: "editor",
    overrideHeader: undefined,
    dryRun: false,
  });
  if (decision.outcome !== "refuse") throw new Error("not refused");
  return new ApiError(decision.status, decision.error);
};

describe("planLinkOf", () => {
  it("links a refused toggle or update to a new plan of the flag", () => {
    expect(planLinkOf(refusal("toggle"))).toBe("/rollouts/new?namespace=shop&name=new-checkout");
    expect(planLinkOf(refusal("update"))).toBe("/rollouts/new?namespace=shop&name=new-checkout");
  });

  it("links nothing else: a refused create (no plan creates a flag), other 403s, other errors", () => {
    expect(planLinkOf(refusal("create"))).toBeUndefined();
    expect(
      planLinkOf(new ApiError(403, "role viewer may not call PUT /api/v1/flags/{namespace}/{name}")),
    ).toBeUndefined();
    expect(planLinkOf(new ApiError(409, refusal("toggle").message))).toBeUndefined();
    expect(planLinkOf(new Error(refusal("toggle").message))).toBeUndefined();
  });
});
