import type { WorkloadDetail } from "@svc/core/browser";
import { Link, useParams, useSearchParams } from "react-router";
import { flagHref } from "../flags/list-model.ts";
import { OutcomeBadge } from "../flags/OutcomeBadge.tsx";
import { PageHeader } from "../ui/PageHeader.tsx";
import { EmptyState, QueryState } from "../ui/states.tsx";
import { envSource } from "./env-source.ts";
import { useWorkload } from "./queries.ts";

function Chips({ items }: { items: string[] }) {
  return items.length === 0 ? (
    <span className="hint">none</span>
  ) : (
    <>
      {items.map((item) => (
        <code key={item} className="label-chip">
          {item}
        </code>
      ))}
    </>
  );
}

/** The flags whose selector matches the workload, and what each did there. */
function WorkloadFlags({ workload: w }: { workload: WorkloadDetail }) {
  return (
    <section className="card" aria-labelledby="flags">
      <h2 id="flags">Flags</h2>
      {w.flags.length === 0 ? (
        <EmptyState title="No flag targets this workload" />
      ) : (
        <div className="table-wrap">
          <table aria-label="Flags of this workload">
            <thead>
              <tr>
                <th scope="col">Flag</th>
                <th scope="col">Delivery</th>
                <th scope="col">Matched by</th>
                <th scope="col">Outcome</th>
              </tr>
            </thead>
            <tbody>
              {w.flags.map((flag) => (
                <tr key={flag.name}>
                  <td>
                    <Link to={flagHref({ clusterId: w.clusterId, namespace: w.namespace, name: flag.name })}>
                      {flag.name}
                    </Link>
                  </td>
                  <td>
                    {flag.delivery}
                    {flag.envVar !== undefined && <code> {flag.envVar}</code>}
                  </td>
                  <td>{flag.matchedBy === "labels" ? "workload labels" : "pod template labels"}</td>
                  <td>
                    <OutcomeBadge outcome={flag.outcome} /> {flag.message}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** Each container: its image and its environment. */
function WorkloadContainers({ workload: w }: { workload: WorkloadDetail }) {
  return (
    <section className="card" aria-labelledby="containers">
      <h2 id="containers">Containers</h2>
      {w.containers.map((container) => (
        <div key={container.name} className="container">
          <h3>
            {container.name} {container.init && <span className="badge">init</span>}
          </h3>
          <p className="mono">{container.image}</p>
          {container.env.length > 0 && (
            <div className="table-wrap">
              <table aria-label={`Environment of ${container.name}`}>
                <thead>
                  <tr>
                    <th scope="col">Variable</th>
                    <th scope="col">Value</th>
                  </tr>
                </thead>
                <tbody>
                  {container.env.map((env) => (
                    <tr key={env.name}>
                      <td className="mono">{env.name}</td>
                      <td className="mono">
                        {env.valueFrom === undefined ? env.value : envSource(env.valueFrom)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </div>
      ))}
    </section>
  );
}

/** The ConfigMaps and Secrets the workload reads, and its labels. */
function WorkloadReferences({ workload: w }: { workload: WorkloadDetail }) {
  return (
    <section className="card" aria-labelledby="references">
      <h2 id="references">References and labels</h2>
      <dl className="facts">
        <dt>ConfigMaps</dt>
        <dd>
          <Chips items={w.configMapRefs} />
        </dd>
        <dt>Secrets</dt>
        <dd>
          <Chips items={w.secretRefs} />
        </dd>
        <dt>Labels</dt>
        <dd>
          <Chips items={Object.entries(w.labels).map(([k, v]) => `${k}=${v}`)} />
        </dd>
        <dt>Pod template labels</dt>
        <dd>
          <Chips items={Object.entries(w.podTemplateLabels).map(([k, v]) => `${k}=${v}`)} />
        </dd>
      </dl>
    </section>
  );
}

/** One workload: what runs, what it reads (env as the API shows it, redacted), and its flags. */
export function WorkloadPage() {
  const { id = "", namespace = "", name = "" } = useParams();
  const [params] = useSearchParams();
  const kind = params.get("kind") ?? "";
  const workload = useWorkload(id, namespace, name, kind);
  return (
    <QueryState query={workload} what="the workload">
      {(w) => (
        <>
          <PageHeader title={`${w.kind} ${w.namespace}/${w.name}`} />
          <p className="hint">
            In cluster <Link to={`/clusters/${encodeURIComponent(w.clusterId)}`}>{w.clusterId}</Link> ·{" "}
            {w.readyReplicas}/{w.replicas} ready{w.flagsHash === null ? "" : ` · flags hash ${w.flagsHash}`}
          </p>
          <WorkloadFlags workload={w} />
          <WorkloadContainers workload={w} />
          <WorkloadReferences workload={w} />
        </>
      )}
    </QueryState>
  );
}
