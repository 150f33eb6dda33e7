/**
 * The words every part of svc shares, and nothing else: the API group and kinds, the flag types
 * and delivery kinds, the phases and outcomes a status reports, and the sidecar's fixed places.
 * Imports nothing, so the sidecar, the browser and every feature folder can depend on it.
 */

export const API_GROUP = "svc.io";
export const API_VERSION = "v1alpha1";
export const API_GROUP_VERSION = `${API_GROUP}/${API_VERSION}`;

export const FEATURE_FLAG = { kind: "FeatureFlag", plural: "featureflags", singular: "featureflag" } as const;

export const FLAG_TYPES = ["boolean", "integer", "string", "json"] as const;
export type FlagType = (typeof FLAG_TYPES)[number];

export const DELIVERY_KINDS = ["envVar", "configMap", "sidecar"] as const;
export type DeliveryKind = (typeof DELIVERY_KINDS)[number];

export const FLAG_PHASES = ["Pending", "Delivered", "Degraded", "NoTargets"] as const;
export type FlagPhase = (typeof FLAG_PHASES)[number];

/**
 * What became of a flag at one target workload:
 * delivered (the workload carries it), pending (not applied yet), conflict (the workload already
 * defines the variable, or another flag sets it), invalid (the flag's value cannot be delivered),
 * disabled (the flag is off and its value withdrawn).
 */
export const TARGET_OUTCOMES = ["delivered", "pending", "conflict", "invalid", "disabled"] as const;
export type TargetOutcome = (typeof TARGET_OUTCOMES)[number];

export const AUTH_METHODS = ["kubeconfig", "serviceaccount", "oidc"] as const;
export const CLUSTER_PHASES = ["Connected", "Disconnected", "Error"] as const;
export type ClusterPhase = (typeof CLUSTER_PHASES)[number];

export const DEFAULT_SIDECAR_PORT = 8514;
/** The ports a flag's sidecar delivery may ask for: unprivileged ones only. */
export const SIDECAR_PORT_MIN = 1024;
export const SIDECAR_PORT_MAX = 65535;
/** Where the injected sidecar's downward API volume is mounted, and its file of the pod's labels. */
export const SIDECAR_PODINFO_MOUNT = "/etc/svc-flags-podinfo";
export const SIDECAR_POD_LABELS_FILE = "labels";

export const INT64_MAX = "9223372036854775807";
export const INT64_MIN = "-9223372036854775808";
