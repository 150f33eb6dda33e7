// `svc operator` with the informer caches as they were before trimming (issue 22): workloads
// and namespaces decoded into client-node's typed models without managedFields, flags whole.
// Only for bench/operator/memory.ts --untrimmed, which measures both in the same run; this
// copy of the previous decode is the baseline, not a mode of the product.
//
//   node bench/operator/untrimmed-operator.ts operator
import { ObjectSerializer } from "@kubernetes/client-node/dist/gen/models/ObjectSerializer.js";
import {
  DAEMON_SETS,
  DEPLOYMENTS,
  FLAGS,
  NAMESPACES,
  STATEFUL_SETS,
} from "../../packages/kube/src/registry/kinds.ts";

function withoutManagedFields(raw: unknown): unknown {
  const { metadata, ...rest } = raw as { metadata?: Record<string, unknown> };
  if (metadata === undefined) return raw;
  const kept = { ...metadata };
  delete kept["managedFields"];
  return { ...rest, metadata: kept };
}

const decodeAs = (type: string) => (raw: unknown) =>
  ObjectSerializer.deserialize(withoutManagedFields(raw), type, "") as never;
Object.assign(DEPLOYMENTS, { decode: decodeAs("V1Deployment") });
Object.assign(STATEFUL_SETS, { decode: decodeAs("V1StatefulSet") });
Object.assign(DAEMON_SETS, { decode: decodeAs("V1DaemonSet") });
Object.assign(NAMESPACES, { decode: decodeAs("V1Namespace") });
Object.assign(FLAGS, { decode: (raw: unknown) => raw as never });
await import("../../packages/cli/src/main.ts");
