import { parseOperatorConfig, runOperator, type OperatorConfig, type RunningOperator } from "@svc/operator";

/** `svc operator`: delivers flags to workloads of every registered cluster (docs/operator.md). */
export async function runOperatorCommand(): Promise<void> {
  let config: OperatorConfig;
  try {
    config = parseOperatorConfig(process.env);
  } catch (error) {
    process.stderr.write(`svc operator: invalid configuration: ${(error as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  let operator: RunningOperator;
  try {
    operator = await runOperator(config);
  } catch (error) {
    process.stderr.write(`svc operator: cannot start: ${(error as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  // Starting to act (after winning the Lease) can fail too: the hub unreachable, CRDs refused.
  operator.ready.catch((error: unknown) => {
    process.stderr.write(`svc operator: cannot start: ${(error as Error).message}\n`);
    void operator.close().then(() => process.exit(1));
  });
  // Leadership lost: stop at once and let Kubernetes restart the pod as a candidate again.
  void operator.stopped.then(() => process.exit(1));
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      void operator.close().then(() => process.exit(0));
    });
  }
}
