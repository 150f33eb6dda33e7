// A FlagRollout plan as the REST API shows it (docs/api.md "Rollouts") and the body that creates
// one: the one definition the API validates with and the dashboard and the CLI read (as types).
import Type from "typebox";
import { dns1123Label } from "../schema/schema.ts";
import { FlagRolloutSpec, FlagRolloutStatus } from "./flag-rollout.ts";

/** A plan's name as a client may pick it (on creation, on a promotion). */
export const RolloutPlanName = dns1123Label(
  "The plan's name. Default: the flag's name and 5 random characters.",
);

/** POST /api/v1/rollouts: a FlagRollout spec, and the plan's name if the client picks it. */
export const RolloutCreateBody = Type.Object(
  { name: Type.Optional(RolloutPlanName), ...FlagRolloutSpec.properties },
  { additionalProperties: false },
);
export type RolloutCreateBody = Type.Static<typeof RolloutCreateBody>;

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
