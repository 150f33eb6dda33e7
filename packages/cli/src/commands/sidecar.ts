import { configFromEnv, runSidecar, type RunningSidecar, type SidecarConfig } from "@svc/sidecar";

/** `svc sidecar`: the in-pod flag server, configured from the environment (docs/sidecar.md). */
export async function runSidecarCommand(): Promise<void> {
  let config: SidecarConfig;
  try {
    config = configFromEnv(process.env);
  } catch (error) {
    process.stderr.write(`svc sidecar: invalid configuration: ${(error as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  let sidecar: RunningSidecar;
  try {
    sidecar = await runSidecar(config);
  } catch (error) {
    process.stderr.write(`svc sidecar: cannot start: ${(error as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  // SIGTERM (pod shutdown): stop accepting, end the streams so clients reconnect elsewhere,
  // close the watch, then exit.
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      void sidecar.close().then(() => process.exit(0));
    });
  }
}
