import { parseOperatorConfig, runOperator } from "@svc/operator";
import { runProcess } from "@svc/process";

/**
 * `svc operator`: delivers flags to workloads of every registered cluster (docs/operator.md).
 * Starting to act (after winning the Lease) can fail too, the hub unreachable or the CRDs
 * refused; and a replica that loses its Lease stops at once, so that Kubernetes restarts it as a
 * candidate again: both end the process with exit code 1.
 */
export function runOperatorCommand(): Promise<void> {
  return runProcess({
    command: "svc operator",
    parse: parseOperatorConfig,
    start: async (config) => {
      const operator = await runOperator(config);
      const failed = operator.ready.then(() => new Promise<never>(() => undefined));
      return { close: () => operator.close(), stopped: Promise.race([operator.stopped, failed]) };
    },
  });
}
