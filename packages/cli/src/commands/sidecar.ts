import { runProcess } from "@svc/process";
import { configFromEnv, runSidecar } from "@svc/sidecar";

/**
 * `svc sidecar`: the in-pod flag server, configured from the environment (docs/sidecar.md). On
 * SIGTERM (pod shutdown) it stops accepting, ends the streams so that clients reconnect
 * elsewhere, and closes the watch.
 */
export function runSidecarCommand(): Promise<void> {
  return runProcess({
    command: "svc sidecar",
    parse: configFromEnv,
    start: async (config) => {
      const sidecar = await runSidecar(config);
      return { close: () => sidecar.close() };
    },
  });
}
