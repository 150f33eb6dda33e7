import type { DiscoveredWorkload } from "@svc/core/browser";
import { Link, useParams, useSearchParams } from "react-router";
import { PageHeader } from "../ui/PageHeader.tsx";
import { EmptyState, Loading, QueryState } from "../ui/states.tsx";
import { ClusterStatus, LastSync } from "./ClusterStatus.tsx";
import { NamespaceSelect } from "./NamespaceSelect.tsx";
import { loadedItems } from "../api/list-page.ts";
import { useCluster, useWorkloadPages } from "./queries.ts";

export function workloadHref(
  w: Pick<DiscoveredWorkload, "clusterId" | "namespace" | "name" | "kind">,
): string {
  return `/clusters/${encodeURIComponent(w.clusterId)}/workloads/${encodeURIComponent(w.namespace)}/${encodeURIComponent(w.name)}?kind=${w.kind}`;
}

function Workloads({ clusterId, namespace }: { clusterId: string; namespace: string }) {
  const workloads = useWorkloadPages(clusterId, namespace === "" ? undefined : namespace);
  const loaded = workloads.data === undefined ? undefined : loadedItems(workloads.data.pages);
  return (
    <QueryState query={{ ...workloads, data: loaded }} what="workloads">
      {({ items: list, total }) =>
        list.length === 0 ? (
          <EmptyState title="No workloads">
            <p>
              No Deployment, StatefulSet or DaemonSet{" "}
              {namespace === "" ? "in the managed namespaces" : `in ${namespace}`}.
            </p>
          </EmptyState>
        ) : (
          <>
            <p className="hint" aria-live="polite">
              {list.length === total ? `${total} workloads` : `${list.length} of ${total} workloads shown`}
            </p>
            <div className="table-wrap">
              <table aria-label="Workloads">
                <thead>
                  <tr>
                    <th scope="col">Workload</th>
                    <th scope="col">Ready</th>
                    <th scope="col">Images</th>
                    <th scope="col">Flags</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((w) => (
                    <tr key={`${w.kind}/${w.namespace}/${w.name}`}>
                      <td>
                        <span className="hint">{w.kind}</span>{" "}
                        <Link to={workloadHref(w)} className="strong">
                          {w.namespace}/{w.name}
                        </Link>
                      </td>
                      <td>
                        {w.readyReplicas}/{w.replicas}
                      </td>
                      <td className="mono">{w.images.join(", ")}</td>
                      <td>
                        {w.injectedFlags.length === 0 ? (
                          <span className="hint">none</span>
                        ) : (
                          w.injectedFlags.map((flag) => (
                            <code key={flag.name} className="label-chip">
                              {flag.name}
                            </code>
                          ))
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {workloads.isFetchingNextPage ? (
              <Loading what="more workloads" />
            ) : (
              workloads.hasNextPage && (
                <button
                  type="button"
                  onClick={() => {
                    void workloads.fetchNextPage();
                  }}
                >
                  Show more workloads
                </button>
              )
            )}
          </>
        )
      }
    </QueryState>
  );
}

export function ClusterPage() {
  const { id = "" } = useParams();
  const [params, setParams] = useSearchParams();
  const namespace = params.get("namespace") ?? "";
  const cluster = useCluster(id);
  return (
    <QueryState query={cluster} what="the cluster">
      {(c) => (
        <>
          <PageHeader title={c.displayName} />
          <dl className="facts card">
            <dt>Status</dt>
            <dd>
              <ClusterStatus cluster={c} />
            </dd>
            <dt>Id</dt>
            <dd>
              {c.id} {c.local && <span className="badge">local</span>}
            </dd>
            <dt>API server</dt>
            <dd className="mono">{c.apiServer}</dd>
            <dt>Kubernetes</dt>
            <dd>{c.kubernetesVersion === "" ? "unknown" : c.kubernetesVersion}</dd>
            <dt>Authentication</dt>
            <dd>{c.authMethod}</dd>
            <dt>Last sync</dt>
            <dd>
              <LastSync cluster={c} />
            </dd>
            <dt>Namespaces</dt>
            <dd>{c.namespaces.length === 0 ? "all but system namespaces" : c.namespaces.join(", ")}</dd>
          </dl>
          <h2>Workloads</h2>
          <div className="toolbar">
            <label className="field">
              <span>Namespace</span>
              <NamespaceSelect
                clusterId={c.id}
                value={namespace}
                emptyLabel="All namespaces"
                onChange={(next) => {
                  setParams(next === "" ? {} : { namespace: next }, { replace: true });
                }}
              />
            </label>
          </div>
          <Workloads clusterId={c.id} namespace={namespace} />
        </>
      )}
    </QueryState>
  );
}
