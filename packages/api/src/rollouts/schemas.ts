// The REST shapes of FlagRollout plans (docs/api.md "Rollouts"), built from core's one schema of
// the resource, so that the body the API takes is the spec the CRD stores.
import {
  DNS1123_LABEL,
  DNS1123_LABEL_MAX,
  FlagRolloutSpec,
  ROLLOUT_PHASES,
  RolloutPlanName,
  RolloutView,
} from "@svc/core";
import Type from "typebox";
import { ListOf, PAGING_QUERY } from "../http/list-reply.ts";

const spec = FlagRolloutSpec.properties;

/** POST /api/v1/flags/{namespace}/{name}/promote: the waves; the change is the source flag's. */
export const PromoteBody = Type.Object(
  {
    name: Type.Optional(RolloutPlanName),
    waves: spec.waves,
    startAt: spec.startAt,
    progressDeadlineSeconds: spec.progressDeadlineSeconds,
  },
  { additionalProperties: false },
);
export type PromoteBody = Type.Static<typeof PromoteBody>;

export const PromoteQuery = Type.Object(
  {
    clusterId: Type.String({
      maxLength: 63,
      description: "The cluster whose flag is promoted (the source).",
    }),
  },
  { additionalProperties: false },
);

/** POST /api/v1/rollouts/{name}/approve and /reject. */
export const ApprovalBody = Type.Object(
  {
    comment: Type.Optional(Type.String({ maxLength: 1024, description: "Why; shown with the decision." })),
    spec: Type.Optional({
      ...FlagRolloutSpec,
      description:
        "The plan's spec as the approver read it: 409 when the plan has changed since (its change, waves or schedule).",
    }),
  },
  { additionalProperties: false },
);
export type ApprovalBody = Type.Static<typeof ApprovalBody>;

export const RolloutParams = Type.Object(
  {
    name: Type.String({
      maxLength: DNS1123_LABEL_MAX,
      pattern: DNS1123_LABEL,
      errorMessage: "must be a plan's name (a DNS-1123 label)",
    }),
  },
  { additionalProperties: false },
);
export type RolloutParams = Type.Static<typeof RolloutParams>;

export const RolloutListQuery = Type.Object(
  {
    flag: Type.Optional(
      Type.String({
        maxLength: 127,
        pattern: "^[^/]+/[^/]+$",
        errorMessage: "must be <namespace>/<name>",
        description: "Only the plans of this flag, as <namespace>/<name>.",
      }),
    ),
    phase: Type.Optional(
      Type.Enum([...ROLLOUT_PHASES], {
        description: "Only the plans in this phase (Pending: also those the operator has not picked up yet).",
      }),
    ),
    ...PAGING_QUERY,
  },
  { additionalProperties: false },
);
export type RolloutListQuery = Type.Static<typeof RolloutListQuery>;

// The plan's view is core's (the dashboard and the CLI read the same one); the routes take it from here.
export { RolloutView };
export const RolloutList = ListOf(RolloutView);
