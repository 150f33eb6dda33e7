import type { ClusterView } from "@svc/core/browser";
import { Link } from "react-router";
import { useCan } from "../session/session.tsx";
import { ConfirmDialog } from "../ui/ConfirmDialog.tsx";
import { PageHeader } from "../ui/PageHeader.tsx";
import { EmptyState, QueryState } from "../ui/states.tsx";
import { ClusterStatus, LastSync } from "./ClusterStatus.tsx";
import { useClusters, useRemoveCluster } from "./queries.ts";
import { RegisterClusterDialog } from "./RegisterClusterDialog.tsx";

function RemoveClusterButton({ cluster }: { cluster: ClusterView }) {
  const can = useCan();
  const remove = useRemoveCluster();
  if (cluster.local || !can("DELETE /api/v1/clusters/{id}")) return null;
  return (
    <ConfirmDialog
      trigger={
        <button type="button" className="quiet" aria-label={`Remove ${cluster.id}`}>
          Remove
        </button>
      }
      title={`Remove cluster ${cluster.displayName}?`}
      description={
        <p>
          svc stops managing <strong>{cluster.id}</strong> ({cluster.apiServer}) and deletes the credentials
          it stored for it. The FeatureFlags in that cluster stay where they are, undelivered.
        </p>
      }
      confirmLabel="Remove cluster"
      onConfirm={() => remove.mutateAsync(cluster.id)}
    />
  );
}

export function ClusterListPage() {
  const can = useCan();
  const clusters = useClusters();
  return (
    <>
      <PageHeader title="Clusters" actions={can("POST /api/v1/clusters") && <RegisterClusterDialog />} />
      <QueryState query={clusters} what="clusters">
        {(list) =>
          list.length === 0 ? (
            <EmptyState title="No clusters">
              <p>The cluster svc runs in registers itself when the API server starts.</p>
            </EmptyState>
          ) : (
            <div className="table-wrap">
              <table aria-label="Clusters">
                <thead>
                  <tr>
                    <th scope="col">Cluster</th>
                    <th scope="col">Status</th>
                    <th scope="col">Kubernetes</th>
                    <th scope="col">Workloads</th>
                    <th scope="col">Last sync</th>
                    <th scope="col">Labels</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((cluster) => (
                    <tr key={cluster.id}>
                      <td>
                        <Link to={`/clusters/${encodeURIComponent(cluster.id)}`} className="strong">
                          {cluster.displayName}
                        </Link>{" "}
                        {cluster.local && <span className="badge">local</span>}
                        <div className="hint">
                          {cluster.id} · {cluster.apiServer}
                        </div>
                      </td>
                      <td>
                        <ClusterStatus cluster={cluster} />
                      </td>
                      <td>
                        {cluster.kubernetesVersion === "" ? (
                          <span className="hint">unknown</span>
                        ) : (
                          cluster.kubernetesVersion
                        )}
                      </td>
                      <td>{cluster.discoveredWorkloads}</td>
                      <td>
                        <LastSync cluster={cluster} />
                      </td>
                      <td>
                        {Object.entries(cluster.labels).map(([key, value]) => (
                          <code key={key} className="label-chip">
                            {key}={value}
                          </code>
                        ))}
                      </td>
                      <td>
                        <RemoveClusterButton cluster={cluster} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryState>
    </>
  );
}
