import { Link } from "react-router";
import { useAccess } from "../session/session.tsx";
import { PageHeader } from "../ui/PageHeader.tsx";
import { EmptyState, Loading, QueryState } from "../ui/states.tsx";
import { relativeTime } from "../ui/time.ts";
import { PhaseBadge } from "./Badge.tsx";
import { useRolloutPages } from "./queries.ts";
import { currentWaveText, filterOf, flagOf, planBadge, planPhase, rolloutHref } from "./rollout-model.ts";
import { ROLLOUT_PHASES, type RolloutView } from "./types.ts";
import { useRolloutFilter } from "./useRolloutFilter.ts";

function RolloutRow({ plan }: { plan: RolloutView }) {
  return (
    <tr>
      <th scope="row">
        <Link to={rolloutHref(plan.name)} className="strong">
          {plan.name}
        </Link>
      </th>
      <td className="mono">{flagOf(plan)}</td>
      <td>
        <PhaseBadge badge={planBadge(planPhase(plan))} title={plan.status.message} />
      </td>
      <td>{currentWaveText(plan)}</td>
      <td>{plan.author === "" ? <span className="hint">kubectl</span> : plan.author}</td>
      <td title={new Date(plan.createdAt).toLocaleString()}>{relativeTime(plan.createdAt)}</td>
    </tr>
  );
}

/** The phase filter, and the flag filter when a flag's page linked here. */
function RolloutFilters({
  filter,
  update,
}: {
  filter: ReturnType<typeof filterOf>;
  update: (key: "phase" | "flag", value: string) => void;
}) {
  return (
    <div className="toolbar" role="search">
      <label className="field">
        <span>Phase</span>
        <select
          value={filter.phase ?? ""}
          onChange={(event) => {
            update("phase", event.target.value);
          }}
        >
          <option value="">All phases</option>
          {ROLLOUT_PHASES.map((phase) => (
            <option key={phase} value={phase}>
              {planBadge(phase).label}
            </option>
          ))}
        </select>
      </label>
      {filter.flag !== undefined && (
        <p className="hint">
          Plans of flag <code>{filter.flag}</code>.{" "}
          <button
            type="button"
            onClick={() => {
              update("flag", "");
            }}
          >
            Show every flag&apos;s
          </button>
        </p>
      )}
    </div>
  );
}

/** The plans loaded so far, and a button to load the next page. */
function RolloutTable({
  plans,
  loadingMore,
  hasMore,
  onMore,
}: {
  plans: RolloutView[];
  loadingMore: boolean;
  hasMore: boolean;
  onMore: () => void;
}) {
  return (
    <>
      <div className="table-wrap">
        <table aria-label="Rollouts">
          <thead>
            <tr>
              <th scope="col">Plan</th>
              <th scope="col">Flag</th>
              <th scope="col">Phase</th>
              <th scope="col">Wave</th>
              <th scope="col">Author</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {plans.map((plan) => (
              <RolloutRow key={plan.name} plan={plan} />
            ))}
          </tbody>
        </table>
      </div>
      {loadingMore ? (
        <Loading what="more rollouts" />
      ) : (
        hasMore && (
          <button type="button" onClick={onMore}>
            Show more rollouts
          </button>
        )
      )}
    </>
  );
}

/** Every plan, newest first: flag, phase, the wave in flight, author, age; filtered by phase. */
export function RolloutsPage() {
  const { filter, update } = useRolloutFilter();
  const pages = useRolloutPages(filter);
  const { canSomewhere } = useAccess();
  const plans = pages.data?.pages.flatMap((page) => page.items);
  return (
    <>
      <PageHeader
        title="Rollouts"
        actions={
          canSomewhere("POST /api/v1/rollouts") && (
            <Link to="/rollouts/new" className="button primary">
              New rollout
            </Link>
          )
        }
      />
      <RolloutFilters filter={filter} update={update} />
      <QueryState query={{ ...pages, data: plans }} what="rollouts">
        {(list) =>
          list.length === 0 ? (
            <EmptyState
              title={
                filter.phase === undefined
                  ? "No rollouts"
                  : `No ${planBadge(filter.phase).label.toLowerCase()} rollouts`
              }
            >
              <p>
                A rollout changes one flag wave by wave across clusters, each wave baked and health-gated.
              </p>
            </EmptyState>
          ) : (
            <RolloutTable
              plans={list}
              loadingMore={pages.isFetchingNextPage}
              hasMore={pages.hasNextPage}
              onMore={() => {
                void pages.fetchNextPage();
              }}
            />
          )
        }
      </QueryState>
    </>
  );
}
