// The commands of `svc`, each loaded only when run (or asked for its settings), so that
// `svc sidecar` never loads the API server.
import { settingsOf, type SettingUse } from "@svc/core/schema/settings";

export interface Command {
  summary: string;
  /** Options besides --help; any other argument is refused ("own": the command reads its arguments). */
  options?: readonly string[] | "own";
  /** The settings it reads (from its own parser), and notes for its help. */
  settings: () => Promise<{ uses: SettingUse[]; notes?: string[] }>;
  run: (args: string[]) => Promise<void>;
}

export const commands: Record<string, Command> = {
  dev: {
    summary: "run svc on this machine against a local Kubernetes control plane, with demo data",
    settings: async () => ({
      uses: settingsOf((await import("./commands/dev.ts")).parseDevSettings),
      notes: [
        "Every setting of svc api, operator, sidecar and dashboard applies too (svc <command> --help);",
        "svc dev listens on 127.0.0.1 only. Details: docs/development.md#make-dev.",
      ],
    }),
    run: async () => (await import("./commands/dev.ts")).runDev(),
  },
  api: {
    summary: "run the REST API server (port 8090; settings from SVC_* environment variables)",
    settings: async () => ({ uses: settingsOf((await import("@svc/api")).parseApiConfig) }),
    run: async () => (await import("./commands/api.ts")).runApi(),
  },
  "reset-admin-password": {
    summary: "set a new password for the admin user (from SVC_ADMIN_PASSWORD, stdin, or generated)",
    options: ["--password-stdin"],
    settings: async () => ({
      uses: settingsOf((await import("@svc/api")).parseApiConfig).filter((use) =>
        ["SVC_DATABASE_URL", "SVC_DATABASE_PATH", "SVC_ADMIN_PASSWORD"].includes(use.name),
      ),
      notes: ["--password-stdin  read the new password from stdin instead of SVC_ADMIN_PASSWORD"],
    }),
    run: async (args) => (await import("./commands/reset-admin-password.ts")).runResetAdminPassword(args),
  },
  operator: {
    summary:
      "run the operator that delivers flags to workloads (metrics port 9091; SVC_* environment variables)",
    settings: async () => ({ uses: settingsOf((await import("@svc/operator")).parseOperatorConfig) }),
    run: async () => (await import("./commands/operator.ts")).runOperatorCommand(),
  },
  dashboard: {
    summary: "run the web dashboard and its /api proxy (port 8080; SVC_DASHBOARD_*, SVC_API_URL)",
    settings: async () => ({ uses: settingsOf((await import("@svc/dashboard")).parseDashboardConfig) }),
    run: async () => (await import("./commands/dashboard.ts")).runDashboard(),
  },
  flags: {
    summary:
      "manage flags through the REST API: login, list, get, create, set, toggle, delete, apply, diff, import, export, promote, rollout",
    options: "own",
    settings: async () => ({
      uses: settingsOf((await import("./flags/connection.ts")).parseCliSettings),
      notes: [
        "svc flags <verb> --help for each verb's options; svc flags alone lists the verbs.",
        "--server and --token win over SVC_API_URL and SVC_TOKEN, which win over the login's token file",
        "($XDG_CONFIG_HOME/svc/token). Exit codes: 0 done, 1 error, 2 bad usage, 3 not found, 4 conflict.",
        "Details: docs/cli.md.",
      ],
    }),
    run: async (args) => (await import("./commands/flags.ts")).runFlags(args, Object.keys(commands)),
  },
  users: {
    summary:
      "manage users, their global roles and their grants over clusters and namespaces: list, get, create, set, grant, revoke, delete",
    options: "own",
    settings: async () => ({
      uses: settingsOf((await import("./flags/connection.ts")).parseCliSettings),
      notes: [
        "svc users <verb> --help for each verb's options; svc users alone lists the verbs.",
        "The connection is svc flags': --server and --token, SVC_API_URL and SVC_TOKEN, then the token of",
        "svc flags login. Exit codes: 0 done, 1 error, 2 bad usage, 3 not found, 4 conflict. Details: docs/cli.md.",
      ],
    }),
    run: async (args) => {
      process.exitCode = await (await import("./users/run.ts")).runUsersVerb(args);
    },
  },
  sidecar: {
    summary: "run the in-pod flag server (port 8514; POD_NAMESPACE, SVC_SIDECAR_* environment variables)",
    settings: async () => ({ uses: settingsOf((await import("@svc/sidecar")).configFromEnv) }),
    run: async () => (await import("./commands/sidecar.ts")).runSidecarCommand(),
  },
};
