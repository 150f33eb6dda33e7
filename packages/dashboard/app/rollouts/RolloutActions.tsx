import { useState, type ReactNode } from "react";
import { useNavigate } from "react-router";
import { useClusters } from "../clusters/queries.ts";
import { useAccess, useUser } from "../session/session.tsx";
import { ConfirmDialog } from "../ui/ConfirmDialog.tsx";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { Field } from "../ui/Field.tsx";
import { FormDialog } from "../ui/FormDialog.tsx";
import { useDecision, useDeleteRollout, useSpecAction, type SpecAction } from "./queries.ts";
import { planActions, planScopes } from "./rollout-model.ts";
import type { RolloutView } from "./types.ts";

const SPEC_ACTION_LABELS: Readonly<Record<SpecAction, readonly [string, string]>> = {
  pause: ["Pause", "Plan paused: no further wave starts; the gates keep watching."],
  resume: ["Resume", "Plan resumed."],
  "skip-bake": ["Skip bake", "The rest of this wave's bake is skipped; its gate still needs it healthy."],
  abort: ["Abort", "Aborted: the operator rolls back every applied wave."],
};

/** Approve or Reject, with an optional comment; the API's refusal (403 for the author) stays in view. */
function DecisionDialog({ plan, decision }: { plan: RolloutView; decision: "approve" | "reject" }) {
  const [open, setOpen] = useState(false);
  const [comment, setComment] = useState("");
  const decide = useDecision(plan.name);
  const verb = decision === "approve" ? "Approve" : "Reject";
  return (
    <FormDialog
      trigger={
        <button type="button" className={decision === "approve" ? "primary" : "danger-outline"}>
          {verb}
        </button>
      }
      title={`${verb} rollout ${plan.name}?`}
      description={
        decision === "approve"
          ? `It touches protected clusters (${(plan.status.protectedClusters ?? []).join(", ")}); once approved, its waves start.`
          : "The plan ends as Rejected; nothing is changed."
      }
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        decide.reset();
      }}
      onSubmit={() => {
        decide.mutate(
          { decision, comment, spec: plan.spec },
          {
            onSuccess: () => {
              setOpen(false);
            },
          },
        );
      }}
      submitLabel={[verb, decision === "approve" ? "Approving…" : "Rejecting…"]}
      pending={decide.isPending}
      canSubmit
    >
      <Field label="Comment" hint="Optional; shown with the decision.">
        {(control) => (
          <textarea
            {...control}
            maxLength={1024}
            value={comment}
            onChange={(event) => {
              setComment(event.target.value);
            }}
          />
        )}
      </Field>
      <ErrorMessage error={decide.error} />
    </FormDialog>
  );
}

/** Abort, once confirmed: the operator rolls back what the plan applied. */
function AbortDialog({ plan, onConfirm }: { plan: RolloutView; onConfirm: () => Promise<void> }) {
  return (
    <ConfirmDialog
      trigger={
        <button type="button" className="danger-outline">
          Abort
        </button>
      }
      title={`Abort rollout ${plan.name}?`}
      description={
        <p>
          The operator will roll back every applied wave: each cluster the change reached gets the flag&apos;s
          fields back as they were before the plan. No further wave starts.
        </p>
      }
      confirmLabel="Abort and roll back"
      onConfirm={onConfirm}
    />
  );
}

/** Delete a finished plan, once confirmed, then go back to the list. */
function DeleteDialog({ plan }: { plan: RolloutView }) {
  const navigate = useNavigate();
  const remove = useDeleteRollout();
  return (
    <ConfirmDialog
      trigger={
        <button type="button" className="danger-outline">
          Delete
        </button>
      }
      title={`Delete rollout ${plan.name}?`}
      description={
        <p>
          The plan and its timeline go; the flag stays as the plan left it. The audit log keeps its history.
        </p>
      }
      confirmLabel="Delete rollout"
      onConfirm={async () => {
        await remove.mutateAsync(plan.name);
        void navigate("/rollouts");
      }}
    />
  );
}

/** The buttons a plan offers in its state to the signed-in user's roles there, and what they did. */
export function RolloutActions({ plan }: { plan: RolloutView }) {
  const user = useUser();
  const { canInEvery } = useAccess();
  const clusters = useClusters();
  const act = useSpecAction(plan.name);
  const [done, setDone] = useState<string>();
  // The user's role in every cluster of the plan's waves, in its flag's namespace.
  const scopes = planScopes(plan, clusters.data ?? []);
  const actions = planActions(plan, user, (route) => canInEvery(route, scopes));
  const run = (action: SpecAction) => {
    setDone(undefined);
    act.mutate(action, {
      onSuccess: () => {
        setDone(SPEC_ACTION_LABELS[action][1]);
      },
    });
  };
  const button = (action: "pause" | "resume" | "skip-bake"): ReactNode =>
    actions.includes(action) && (
      <button
        type="button"
        disabled={act.isPending}
        onClick={() => {
          run(action);
        }}
      >
        {SPEC_ACTION_LABELS[action][0]}
      </button>
    );
  if (actions.length === 0 && done === undefined && act.error === null) return null;
  return (
    <div>
      <div className="toolbar" role="toolbar" aria-label="Plan actions">
        {actions.includes("approve") && <DecisionDialog plan={plan} decision="approve" />}
        {actions.includes("reject") && <DecisionDialog plan={plan} decision="reject" />}
        {button("pause")}
        {button("resume")}
        {button("skip-bake")}
        {actions.includes("abort") && (
          <AbortDialog
            plan={plan}
            onConfirm={async () => {
              setDone(undefined);
              await act.mutateAsync("abort");
              setDone(SPEC_ACTION_LABELS.abort[1]);
            }}
          />
        )}
        {actions.includes("delete") && <DeleteDialog plan={plan} />}
      </div>
      <p className="success" role="status">
        {done}
      </p>
      <ErrorMessage error={act.error} />
    </div>
  );
}
