// A local control plane registered as a cluster of the hub the way an admin registers one: its
// kubeconfig in a Secret of the system namespace, and a ClusterConnection naming that Secret.
import { readFile } from "node:fs/promises";
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import {
  API_GROUP,
  API_GROUP_VERSION,
  API_VERSION,
  CLUSTER_CONNECTION,
  CLUSTER_CREDENTIAL_LABEL,
  clusterSecretName,
} from "@svc/core";
import type { LocalControlPlane } from "./local-control-plane.ts";

export interface ControlPlaneRegistration {
  /** The cluster id (the ClusterConnection's name). */
  id: string;
  systemNamespace: string;
  /** The namespaces the connection scans. */
  namespaces: string[];
  labels?: Record<string, string>;
  /** Default: the id. */
  displayName?: string;
}

export async function registerControlPlane(
  hub: KubeConfig,
  controlPlane: LocalControlPlane,
  { id, systemNamespace, namespaces, labels, displayName = id }: ControlPlaneRegistration,
): Promise<void> {
  const secret = clusterSecretName(id);
  await hub.makeApiClient(CoreV1Api).createNamespacedSecret({
    namespace: systemNamespace,
    body: {
      metadata: { name: secret, labels: { [CLUSTER_CREDENTIAL_LABEL]: id } },
      stringData: { kubeconfig: await readFile(controlPlane.kubeconfigPath, "utf8") },
    },
  });
  await hub.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    group: API_GROUP,
    version: API_VERSION,
    namespace: systemNamespace,
    plural: CLUSTER_CONNECTION.plural,
    body: {
      apiVersion: API_GROUP_VERSION,
      kind: CLUSTER_CONNECTION.kind,
      metadata: { name: id },
      spec: {
        displayName,
        apiServer: controlPlane.server,
        authMethod: "kubeconfig",
        credentialRef: { name: secret, key: "kubeconfig" },
        namespaces,
        ...(labels === undefined ? {} : { labels }),
      },
    },
  });
}
