#!/usr/bin/env node
// The svc command: one binary, one subcommand per process (DESIGN.md §2). Each command lives in
// commands/<name>.ts and is loaded only when run, so `svc sidecar` never loads the API server.

interface Command {
  summary: string;
  run: (args: string[]) => Promise<void>;
}

const commands: Record<string, Command> = {
  dev: {
    summary: "run svc on this machine against a local Kubernetes control plane, with demo data",
    run: async () => (await import("./commands/dev.ts")).runDev(),
  },
  api: {
    summary: "run the REST API server (port 8090; settings from SVC_* environment variables)",
    run: async () => (await import("./commands/api.ts")).runApi(),
  },
  "reset-admin-password": {
    summary: "set a new password for the admin user (from SVC_ADMIN_PASSWORD, stdin, or generated)",
    run: async (args) => (await import("./commands/reset-admin-password.ts")).runResetAdminPassword(args),
  },
  operator: {
    summary:
      "run the operator that delivers flags to workloads (metrics port 9091; SVC_* environment variables)",
    run: async () => (await import("./commands/operator.ts")).runOperatorCommand(),
  },
  dashboard: {
    summary: "run the web dashboard and its /api proxy (port 8080; SVC_DASHBOARD_*, SVC_API_URL)",
    run: async () => (await import("./commands/dashboard.ts")).runDashboard(),
  },
  sidecar: {
    summary: "run the in-pod flag server (port 8514; POD_NAMESPACE, SVC_SIDECAR_* environment variables)",
    run: async () => (await import("./commands/sidecar.ts")).runSidecarCommand(),
  },
};

function usage(): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length));
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `usage: svc <command> [options]\n\ncommands:\n${lines.join("\n")}\n`;
}

const [name, ...args] = process.argv.slice(2);
const command = name === undefined ? undefined : commands[name];
if (command) {
  await command.run(args);
} else if (name === undefined || name === "help" || name === "--help" || name === "-h") {
  process.stdout.write(usage());
} else {
  process.stderr.write(`svc: unknown command ${JSON.stringify(name)}\n\n${usage()}`);
  process.exitCode = 2;
}
