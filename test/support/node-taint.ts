import type { NodeTaint } from "@svc/localkube";

/** The test node's taint: only the pods of tests that need a node tolerate it. */
export const NODE_TAINT: NodeTaint = { key: "svc.io/test-node", value: "true", effect: "NoSchedule" };
