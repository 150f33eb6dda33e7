// The shell of core's directWriteDecision: every route that writes a flag directly calls it
// before its write (docs/safe-changes.md "Protected clusters").
import { directWriteDecision, roleIn, type DirectWrite } from "@svc/core";
import type { ConnectedCluster } from "@svc/kube";
import type { FastifyRequest } from "fastify";
import { HttpError } from "../http/errors.ts";

/**
 * Refuses (403, or 400 for a malformed reason) a direct write of a flag on a protected cluster,
 * unless it is a dry run or an admin's override; an override's reason is kept on the request,
 * for its audit event.
 */
export function guardDirectWrite(
  request: FastifyRequest,
  cluster: ConnectedCluster,
  write: DirectWrite,
  flag: { namespace: string; name?: string | undefined },
  dryRun = false,
): void {
  const labels = cluster.connection?.spec.labels ?? {};
  const { actor } = request;
  const decision = directWriteDecision({
    write,
    cluster: { id: cluster.id, labels },
    flag,
    // An admin of the flag's scope (globally or by a grant) may override there.
    role:
      actor === undefined
        ? undefined
        : roleIn(actor, { clusterId: cluster.id, clusterLabels: labels, namespace: flag.namespace }),
    overrideHeader: request.headers["x-svc-override-reason"],
    dryRun,
  });
  if (decision.outcome === "refuse") throw new HttpError(decision.status, decision.error);
  if (decision.outcome === "override") request.overrideReason = decision.reason;
}
