// Closing the operator while its cluster registry is still starting (the hub's list of
// ClusterConnections held by a proxy) ends the start-up: once close() resolves, the operator
// sends the hub nothing more, even when the held list is answered afterwards.
import { API_GROUP_VERSION, CLUSTER_CONNECTION } from "@svc/core";
import { waitFor } from "@svc/kube";
import { afterAll, beforeAll, expect, it } from "vitest";
import { testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import { startApiServerProxy, type ApiServerProxy } from "./support/api-server-proxy.ts";
import { operatorScope, startOperator, type OperatorScope } from "./support/operator.ts";

const hub = testKubeConfig();
let scope: OperatorScope;
let proxy: ApiServerProxy;

beforeAll(async () => {
  const ns = await testNamespace(hub, "op-lifecycle");
  scope = await operatorScope(hub, "op-lifecycle", [ns]);
  proxy = await startApiServerProxy(hub);
});

afterAll(async () => {
  await proxy.close();
});

it("a close during the registry's start-up leaves no list or watch running, and none starts later", async () => {
  const connections = `/apis/${API_GROUP_VERSION}/namespaces/${scope.systemNamespace}/${CLUSTER_CONNECTION.plural}?`;
  proxy.hold((request) => request.url.startsWith(connections));
  const operator = await startOperator({ ...scope, kc: proxy.kubeConfig }, {}, { waitUntilLeading: false });
  const readiness = operator.ready.then(
    () => "ready",
    (error: unknown) => (error as Error).message,
  );
  await waitFor(
    () => proxy.held().length,
    (held) => held > 0,
    { what: "the registry's list of ClusterConnections held", timeoutMs: 30_000, intervalMs: 20 },
  );

  await operator.close();
  const sentBeforeClose = proxy.requests.length;
  // The held list answered now: an old start-up would go on to list and watch the clusters.
  proxy.release();
  const outcome = await readiness;

  expect(proxy.held()).toEqual([]);
  expect(proxy.requests.slice(sentBeforeClose)).toEqual([]);
  expect(outcome).toBe("the operator closed before it was ready");
});
