import { Link } from "react-router";
import { relativeTime } from "../ui/time.ts";
import { PhaseBadge, useNow } from "./Badge.tsx";
import { isFinished } from "./rollout-model.ts";
import { timelineOf, waveCountdown, type TimelineCluster, type TimelineWave } from "./timeline-model.ts";
import type { RolloutView } from "./types.ts";

function When({ label, time }: { label: string; time: string | undefined }) {
  if (time === undefined) return null;
  return (
    <span className="hint" title={new Date(time).toLocaleString()}>
      {label} {relativeTime(time)}
    </span>
  );
}

function Workloads({ cluster }: { cluster: TimelineCluster }) {
  if (cluster.workloads.length === 0)
    return <span className="hint">{cluster.deliveredAt === undefined ? "—" : "no workload targeted"}</span>;
  return (
    <ul aria-label={`Workloads in ${cluster.id}`}>
      {cluster.workloads.map((workload) => (
        <li key={workload.key}>
          {workload.title} <PhaseBadge badge={workload.badge} />{" "}
          {workload.message !== "" && <span className="hint">{workload.message}</span>}
        </li>
      ))}
    </ul>
  );
}

function WaveClusters({ wave }: { wave: TimelineWave }) {
  if (wave.clusters.length === 0)
    return <p className="hint">The operator resolves the {wave.target} when the plan starts.</p>;
  return (
    <div className="table-wrap">
      <table aria-label={`Wave ${wave.index} clusters`}>
        <thead>
          <tr>
            <th scope="col">Cluster</th>
            <th scope="col">Phase</th>
            <th scope="col">Workloads</th>
            <th scope="col">Message</th>
          </tr>
        </thead>
        <tbody>
          {wave.clusters.map((cluster) => (
            <tr key={cluster.id}>
              <th scope="row">
                <Link to={`/clusters/${encodeURIComponent(cluster.id)}`}>{cluster.id}</Link>
              </th>
              <td>
                <PhaseBadge badge={cluster.badge} /> <When label="delivered" time={cluster.deliveredAt} />
              </td>
              <td>
                <Workloads cluster={cluster} />
              </td>
              <td>{cluster.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Wave({ wave, now, live }: { wave: TimelineWave; now: number; live: boolean }) {
  const countdown = live ? waveCountdown(wave, now) : undefined;
  return (
    <section
      className="card"
      aria-label={wave.title}
      aria-current={wave.current && live ? "step" : undefined}
    >
      <h3>
        {wave.title} <PhaseBadge badge={wave.badge} />
        {wave.current && live && <span className="hint"> (current)</span>}
      </h3>
      <p>
        {wave.target}; {wave.bake}
        {countdown !== undefined && (
          <>
            {" "}
            — <strong role="timer">{countdown}</strong>
            <span className="hint" title={wave.bakeUntil}>
              {" "}
              (until {new Date(wave.bakeUntil ?? "").toLocaleTimeString()})
            </span>
          </>
        )}
      </p>
      <p>
        <When label="started" time={wave.startedAt} /> <When label="finished" time={wave.finishedAt} />
      </p>
      {wave.message !== "" && (
        <p
          className={wave.phase === "Failed" ? "error" : undefined}
          aria-label={`Wave ${wave.index} message`}
        >
          {wave.message}
        </p>
      )}
      <WaveClusters wave={wave} />
    </section>
  );
}

/** The plan as a live timeline: waves → clusters → workloads, each with its phase. */
export function Timeline({ plan }: { plan: RolloutView }) {
  const waves = timelineOf(plan);
  const live = !isFinished(plan);
  const now = useNow(live && waves.some((wave) => wave.phase === "Baking"));
  return (
    <div aria-label="Timeline" role="group">
      {waves.map((wave) => (
        <Wave key={wave.index} wave={wave} now={now} live={live} />
      ))}
    </div>
  );
}
