// The benchmarks on the local node stop at once, saying why, on a machine that cannot run one.
import { localImageArchives, localNodeUnavailable } from "@svc/localkube";

export function exitUnlessLocalNode(): void {
  const missing = localNodeUnavailable({ imageArchives: localImageArchives() });
  if (missing.length === 0) return;
  process.stderr.write(`this machine cannot run a local node; missing:\n- ${missing.join("\n- ")}\n`);
  process.exit(1);
}
