#!/usr/bin/env node
// The svc command: one binary, one subcommand per process (DESIGN.md §2).
import { runDev } from "./dev.ts";

const usage = `usage: svc <command>

commands:
  dev    run svc on this machine against a local Kubernetes control plane, with demo data
`;

const [command] = process.argv.slice(2);
switch (command) {
  case "dev":
    await runDev();
    break;
  case undefined:
  case "help":
  case "--help":
  case "-h":
    process.stdout.write(usage);
    break;
  default:
    process.stderr.write(`svc: unknown command ${JSON.stringify(command)}\n\n${usage}`);
    process.exitCode = 2;
}
