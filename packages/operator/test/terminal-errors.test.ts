// Which refusals of the API server the operator does not retry.
import { KubeApiError, TerminalError } from "@svc/kube";
import { describe, expect, it } from "vitest";
import { terminalWhenInvalid } from "../src/cluster-controller.ts";

describe("terminalWhenInvalid", () => {
  it.each([400, 422])("makes a %i (the object is refused as it is) terminal", (status) => {
    const refused = new KubeApiError(status, "PATCH /apis/apps/v1/namespaces/shop/deployments/web: invalid");
    const error = terminalWhenInvalid(refused);
    expect(error).toBeInstanceOf(TerminalError);
    expect((error as TerminalError).cause).toBe(refused);
  });

  it.each([409, 429, 500, 503])("leaves a %i to be retried", (status) => {
    const error = new KubeApiError(status, "retry me");
    expect(terminalWhenInvalid(error)).toBe(error);
  });

  it("leaves an error without a status (a timeout, a reset connection) to be retried", () => {
    const error = new Error("socket hang up");
    expect(terminalWhenInvalid(error)).toBe(error);
  });
});
