import { deliveryKind, defaultEnvVarName, DEFAULT_SIDECAR_PORT, type FlagView } from "@svc/core/browser";
import { lazy, Suspense } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { useAccess } from "../session/session.tsx";
import { PageHeader } from "../ui/PageHeader.tsx";
import { EmptyState, Loading, QueryState } from "../ui/states.tsx";
import { relativeTime } from "../ui/time.ts";
import { FlagHistory } from "./FlagHistory.tsx";
import { workloadHref } from "../clusters/ClusterPage.tsx";
import { flagPhaseView } from "./flag-phase.ts";
import { FlagPhaseBadge } from "./FlagPhaseBadge.tsx";
import { OutcomeBadge } from "./OutcomeBadge.tsx";
import { DeleteFlagButton, FlagEnabledSwitch } from "./FlagRowActions.tsx";
import { useFlag } from "./queries.ts";

const FlagYaml = lazy(() => import("./FlagYaml.tsx"));

function DeliverySummary({ flag }: { flag: FlagView }) {
  const { envVar, configMap, sidecar } = flag.delivery;
  const selector = (envVar ?? configMap ?? sidecar)?.selector.matchLabels ?? {};
  return (
    <dl className="facts">
      <dt>Delivery</dt>
      <dd>
        {envVar !== undefined && (
          <>
            environment variable <code>{envVar.name ?? defaultEnvVarName(flag.name)}</code>
          </>
        )}
        {configMap !== undefined && (
          <>
            key <code>{configMap.key}</code> of ConfigMap <code>{configMap.configMapName}</code>, mounted at{" "}
            <code>/etc/svc-flags/{configMap.configMapName}</code>
          </>
        )}
        {sidecar !== undefined && (
          <>
            sidecar <code>svc-flags</code> on port <code>{sidecar.port ?? DEFAULT_SIDECAR_PORT}</code>
          </>
        )}
      </dd>
      <dt>Selector</dt>
      <dd>
        {Object.entries(selector).map(([key, value]) => (
          <code key={key} className="label-chip">
            {key}={value}
          </code>
        ))}
      </dd>
      <dt>Value</dt>
      <dd>
        <pre className="value">{flag.defaultValue}</pre>
        {!flag.enabled && <span className="hint">not delivered while the flag is off</span>}
      </dd>
      <dt>Type</dt>
      <dd>{flag.type}</dd>
      <dt>Updated</dt>
      <dd title={flag.updatedAt}>{relativeTime(flag.updatedAt)}</dd>
    </dl>
  );
}

/** Where the flag is: the operator's report per target workload. */
function DeliveryStatus({ flag }: { flag: FlagView }) {
  const { status } = flag;
  return (
    <>
      <p>
        <FlagPhaseBadge flag={flag} /> {flagPhaseView(flag).message}
      </p>
      {status.targets.length === 0 ? (
        <EmptyState
          title={status.phase === "NoTargets" ? "No workload matches the selector" : "Not delivered yet"}
        >
          <p>
            {status.phase === "NoTargets"
              ? "No Deployment, StatefulSet or DaemonSet of this namespace carries the selector's labels."
              : "The operator has not reported on this flag yet. It lists each target workload here once it has delivered the flag."}
          </p>
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table aria-label="Delivery per workload">
            <thead>
              <tr>
                <th scope="col">Workload</th>
                <th scope="col">Outcome</th>
                <th scope="col">Message</th>
              </tr>
            </thead>
            <tbody>
              {status.targets.map((target) => {
                const outcome = target.outcome ?? (target.delivered ? "delivered" : "pending");
                return (
                  <tr key={`${target.kind}/${target.name}`}>
                    <td>
                      <Link
                        to={workloadHref({ ...target, clusterId: flag.clusterId, namespace: flag.namespace })}
                      >
                        {target.kind} {flag.namespace}/{target.name}
                      </Link>
                    </td>
                    <td>
                      <OutcomeBadge outcome={outcome} />
                    </td>
                    <td>{target.message ?? ""}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

export function FlagDetailPage() {
  const { clusterId = "", namespace = "", name = "" } = useParams();
  const flag = useFlag({ clusterId, namespace, name });
  const { canIn } = useAccess();
  const navigate = useNavigate();
  return (
    <QueryState query={flag} what="the flag">
      {(loaded) => (
        <>
          <PageHeader
            title={loaded.name}
            actions={
              <>
                <FlagEnabledSwitch flag={loaded} />
                {canIn("PUT /api/v1/flags/{namespace}/{name}", loaded) && (
                  <Link to="edit" relative="path" className="button primary">
                    Edit
                  </Link>
                )}
                <DeleteFlagButton
                  flag={loaded}
                  onDeleted={() => {
                    void navigate("/flags");
                  }}
                />
              </>
            }
          />
          <p className="hint">
            {deliveryKind(loaded.delivery)} flag in namespace <strong>{loaded.namespace}</strong> of cluster{" "}
            <strong>{loaded.clusterId}</strong>
            {loaded.description === "" ? "" : ` — ${loaded.description}`}
          </p>
          <section className="card" aria-labelledby="definition">
            <h2 id="definition">Definition</h2>
            <DeliverySummary flag={loaded} />
          </section>
          <section className="card" aria-labelledby="status">
            <h2 id="status">Delivery status</h2>
            <DeliveryStatus flag={loaded} />
          </section>
          <section className="card" aria-labelledby="history">
            <h2 id="history">History</h2>
            <FlagHistory flag={loaded} />
          </section>
          <section className="card" aria-labelledby="yaml">
            <h2 id="yaml">FeatureFlag YAML</h2>
            <Suspense fallback={<Loading what="the YAML" />}>
              <FlagYaml flag={loaded} />
            </Suspense>
          </section>
        </>
      )}
    </QueryState>
  );
}
