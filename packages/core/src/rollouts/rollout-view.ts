// A FlagRollout plan as the REST API shows it (docs/api.md "Rollouts"): the one definition the API
// validates its answers with and the dashboard and the CLI read (as a type).
import Type from "typebox";
import { FlagRolloutSpec, FlagRolloutStatus } from "./flag-rollout.ts";

/** A plan as the API shows it: what was asked (spec) and how far the operator got (status). */
export const RolloutView = Type.Object(
  {
    name: Type.String(),
    author: Type.String({
      description: "The user who created the plan through the API; empty for a plan made otherwise.",
    }),
    createdAt: Type.String({ format: "date-time" }),
    spec: FlagRolloutSpec,
    // Written by the operator ({} until it picks the plan up), but for approval (the API's).
    status: FlagRolloutStatus,
  },
  { additionalProperties: false },
);
export type RolloutView = Type.Static<typeof RolloutView>;
