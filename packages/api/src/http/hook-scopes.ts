import type { ScopeRule } from "@svc/core";
import type { FastifyRequest } from "fastify";
import type { ApiContext } from "../context.ts";
import { requireScopes } from "./scope.ts";

function field(bag: unknown, name: string): string | undefined {
  const value = (bag as Record<string, unknown> | undefined)?.[name];
  return typeof value === "string" ? value : undefined;
}

/**
 * The scopes core's access table says a route's path and query name, checked before the handler
 * (the route's least role in that cluster and namespace). Handler-scoped rules are left to their
 * handlers, which the auth hook's onSend guard holds to it.
 */
export function hookScopes(ctx: ApiContext, request: FastifyRequest, scope: ScopeRule): void {
  const { params, query } = request;
  const clusterId = field(query, "clusterId");
  switch (scope) {
    case "flag":
    case "promote": {
      const namespace = field(params, "namespace");
      if (clusterId === undefined || namespace === undefined)
        throw new Error(`${scope}: no clusterId or namespace`);
      // Promoting reads the source flag; the plan's waves need the route's role (its handler).
      requireScopes(ctx, request, [{ clusterId, namespace }], scope === "promote" ? "viewer" : undefined);
      if (scope === "promote") request.scopeChecked = false;
      return;
    }
    case "namespace-query": {
      const namespace = field(query, "namespace");
      if (clusterId === undefined || namespace === undefined)
        throw new Error(`${scope}: no clusterId or namespace`);
      requireScopes(ctx, request, [{ clusterId, namespace }]);
      return;
    }
    case "cluster":
    case "cluster-filtered":
    case "workload": {
      const id = field(params, "id");
      if (id === undefined) throw new Error(`${scope}: no cluster id`);
      const namespace = scope === "workload" ? field(params, "namespace") : undefined;
      requireScopes(ctx, request, [
        namespace === undefined ? { clusterId: id } : { clusterId: id, namespace },
      ]);
      // The namespaces and workloads of the cluster are still filtered by their handlers.
      if (scope === "cluster-filtered") request.scopeChecked = false;
      return;
    }
    default:
      return;
  }
}
