// client-node's typed clients for one cluster, with what makeApiClient lacks: a bound on every
// call (headers and body) and one shared connection pool instead of a new one per request.
import {
  createConfiguration,
  ServerConfiguration,
  type Configuration,
  type KubeConfig,
  type RequestContext,
  type ResponseContext,
} from "@kubernetes/client-node";
import type { Dispatcher } from "undici";

export interface BoundedClientOptions {
  timeoutMs: number;
  /** The cluster's shared pool. */
  dispatcher: () => Promise<Dispatcher>;
}

export function boundedClient<T>(
  kubeConfig: KubeConfig,
  apiClass: new (configuration: Configuration) => T,
  options: BoundedClientOptions,
): T {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error("the kubeconfig has no current cluster");
  const configuration = createConfiguration({
    baseServer: new ServerConfiguration(cluster.server, {}),
    authMethods: { default: kubeConfig },
    promiseMiddleware: [
      {
        async pre(context: RequestContext): Promise<RequestContext> {
          context.setHeaderParam("User-Agent", "svc");
          context.setSignal(AbortSignal.timeout(options.timeoutMs));
          context.setDispatcher(await options.dispatcher());
          return context;
        },
        post: (context: ResponseContext) => Promise.resolve(context),
      },
    ],
  });
  return new apiClass(configuration);
}
