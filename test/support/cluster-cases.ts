// ClusterConnection specs that every layer must agree on: the TypeScript validator (REST API)
// and the CRD schema in the real API server accept the valid ones and refuse the invalid ones.
export const validClusterSpec = {
  displayName: "Production EU",
  apiServer: "https://10.0.0.1:6443",
  authMethod: "kubeconfig",
  credentialRef: { name: "svc-cluster-prod-eu", key: "kubeconfig" },
  namespaces: ["shop", "payments"],
  resyncPeriod: "30s",
  labels: { region: "eu-west-1", "example.com/tier": "prod" },
};

export const validClusterSpecs: Record<string, unknown>[] = [
  validClusterSpec,
  { displayName: "x", apiServer: "http://127.0.0.1:1" },
  {
    displayName: "Staging",
    apiServer: "https://kube.example.com/k8s/clusters/c-1",
    authMethod: "oidc",
    credentialRef: { name: "staging.oidc", key: "id_token" },
    resyncPeriod: "1h30m",
    labels: { env: "" },
  },
  {
    displayName: "Edge",
    apiServer: "https://[fd00::1]:6443",
    authMethod: "serviceaccount",
    resyncPeriod: "2.5s",
  },
  { displayName: "Lab", apiServer: "https://lab:6443", namespaces: [], resyncPeriod: "500ms" },
];

export interface InvalidClusterCase {
  why: string;
  spec: Record<string, unknown>;
  /** The field the TypeScript validator names. */
  field: string;
}

const withSpec = (patch: Record<string, unknown>) => ({ ...validClusterSpec, ...patch });

export const invalidClusterCases: InvalidClusterCase[] = [
  ...["10.0.0.1:6443", "ftp://x", "https://", "https://a b", ""].map((apiServer) => ({
    why: `apiServer ${JSON.stringify(apiServer)}`,
    spec: withSpec({ apiServer }),
    field: "apiServer",
  })),
  { why: "unknown authMethod", spec: withSpec({ authMethod: "password" }), field: "authMethod" },
  {
    why: "credentialRef name not a Secret name",
    spec: withSpec({ credentialRef: { name: "Bad_Name", key: "k" } }),
    field: "credentialRef.name",
  },
  {
    why: "credentialRef without key",
    spec: withSpec({ credentialRef: { name: "s" } }),
    field: "credentialRef.key",
  },
  {
    why: "credentialRef key with a slash",
    spec: withSpec({ credentialRef: { name: "s", key: "a/b" } }),
    field: "credentialRef.key",
  },
  { why: "namespace not a DNS label", spec: withSpec({ namespaces: ["Shop"] }), field: "namespaces.0" },
  { why: "a namespace twice", spec: withSpec({ namespaces: ["a", "a"] }), field: "namespaces" },
  ...["30", "s", "thirty seconds", "-5s"].map((resyncPeriod) => ({
    why: `resyncPeriod ${JSON.stringify(resyncPeriod)}`,
    spec: withSpec({ resyncPeriod }),
    field: "resyncPeriod",
  })),
  { why: "bad label key", spec: withSpec({ labels: { "bad key": "x" } }), field: "labels.bad key" },
  { why: "bad label value", spec: withSpec({ labels: { tier: "-prod" } }), field: "labels.tier" },
  { why: "empty displayName", spec: withSpec({ displayName: "" }), field: "displayName" },
  { why: "missing displayName", spec: { apiServer: validClusterSpec.apiServer }, field: "displayName" },
  {
    why: "displayName over 253 characters",
    spec: withSpec({ displayName: "x".repeat(254) }),
    field: "displayName",
  },
];

/** Cluster ids a ClusterConnection may not have: the API server and the validator both refuse them. */
export const invalidClusterIds = ["Prod", "prod_eu", "-prod", "p".repeat(64)];
