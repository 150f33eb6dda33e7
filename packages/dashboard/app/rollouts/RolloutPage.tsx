import { Link, useParams } from "react-router";
import { PageHeader } from "../ui/PageHeader.tsx";
import { QueryState } from "../ui/states.tsx";
import { relativeTime } from "../ui/time.ts";
import { PhaseBadge } from "./Badge.tsx";
import { useRollout } from "./queries.ts";
import { RolloutActions } from "./RolloutActions.tsx";
import { currentWaveText, flagOf, isFinished, planBadge, planPhase, type Badge } from "./rollout-model.ts";
import { changeSummary } from "./timeline-model.ts";
import { Timeline } from "./Timeline.tsx";
import type { RolloutView } from "./types.ts";

function Time({ time }: { time: string | undefined }) {
  if (time === undefined) return <span className="hint">—</span>;
  return <span title={new Date(time).toLocaleString()}>{relativeTime(time)}</span>;
}

function Facts({ plan }: { plan: RolloutView }) {
  const { spec, status } = plan;
  return (
    <dl className="facts card">
      <dt>Flag</dt>
      <dd>
        <Link to={`/rollouts?flag=${encodeURIComponent(flagOf(plan))}`} className="mono">
          {flagOf(plan)}
        </Link>
      </dd>
      <dt>Change</dt>
      <dd>
        {changeSummary(spec.change)}
        <pre className="value">{JSON.stringify(spec.change, null, 2)}</pre>
      </dd>
      <dt>Wave</dt>
      <dd>{currentWaveText(plan)}</dd>
      <dt>Author</dt>
      <dd>{plan.author === "" ? <span className="hint">none (created with kubectl)</span> : plan.author}</dd>
      <dt>Created</dt>
      <dd>
        <Time time={plan.createdAt} />
      </dd>
      <dt>Starts</dt>
      <dd>{spec.startAt === undefined ? "at once" : new Date(spec.startAt).toLocaleString()}</dd>
      <dt>Started</dt>
      <dd>
        <Time time={status.startedAt} />
      </dd>
      {status.finishedAt !== undefined && (
        <>
          <dt>Finished</dt>
          <dd>
            <Time time={status.finishedAt} />
          </dd>
        </>
      )}
      {status.protectedClusters !== undefined && (
        <>
          <dt>Protected clusters</dt>
          <dd>{status.protectedClusters.join(", ")}</dd>
        </>
      )}
      {status.approval !== undefined && (
        <>
          <dt>{status.approval.decision}</dt>
          <dd>
            by {status.approval.by} <Time time={status.approval.at} />
            {status.approval.comment !== undefined && `: ${status.approval.comment}`}
          </dd>
        </>
      )}
    </dl>
  );
}

const MESSAGE_CLASS: Readonly<Record<Badge["tone"], string>> = {
  ok: "success",
  warn: "notice",
  bad: "error",
  "": "notice",
};

/** The plan's phase and the operator's message, as it wrote it (a failed gate's reason included). */
function Summary({ plan }: { plan: RolloutView }) {
  const phase = planPhase(plan);
  const badge = planBadge(phase);
  const flags = [
    plan.spec.paused === true && phase !== "Paused" && !isFinished(plan) ? "pause asked" : undefined,
    plan.spec.abort === true && !isFinished(plan) ? "abort asked" : undefined,
  ].filter((flag) => flag !== undefined);
  return (
    <div aria-label="Plan status" role="group">
      <p>
        <PhaseBadge badge={badge} /> {flags.length > 0 && <span className="hint">({flags.join(", ")})</span>}
        {!isFinished(plan) && <span className="hint"> Refreshes every few seconds while the plan runs.</span>}
      </p>
      {plan.status.message !== undefined && (
        <p className={MESSAGE_CLASS[badge.tone]} aria-label="Operator's message">
          {plan.status.message}
        </p>
      )}
      {plan.status.phase === undefined && (
        <p className="hint">The operator has not picked the plan up yet.</p>
      )}
    </div>
  );
}

/** One plan: its facts, its actions, and its live timeline. */
export function RolloutPage() {
  const { name = "" } = useParams();
  const plan = useRollout(name);
  return (
    <QueryState query={plan} what="the rollout">
      {(loaded) => (
        <>
          <PageHeader title={`Rollout ${loaded.name}`} />
          <p>
            <Link to="/rollouts">All rollouts</Link>
          </p>
          <Summary plan={loaded} />
          <RolloutActions plan={loaded} />
          <Facts plan={loaded} />
          <h2>Timeline</h2>
          <Timeline plan={loaded} />
        </>
      )}
    </QueryState>
  );
}
