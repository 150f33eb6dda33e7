import type { ClusterRegistry } from "@svc/kube";
import type { ApiConfig } from "./config.ts";
import type { PasswordHashing } from "./auth/passwords.ts";
import type { SessionStore } from "./auth/sessions.ts";
import type { LoginThrottle } from "./auth/throttle.ts";
import type { Metrics } from "./metrics.ts";
import type { AuditRepo } from "./audit/store.ts";
import type { Store } from "./store/db.ts";
import type { UsersRepo } from "./users/store.ts";
import type { WebhooksRepo } from "./webhooks/store.ts";

/** What the route plugins share: built once per server by buildApiServer. */
export interface ApiContext {
  config: ApiConfig;
  store: Store;
  users: UsersRepo;
  audit: AuditRepo;
  webhooks: WebhooksRepo;
  sessions: SessionStore;
  throttle: LoginThrottle;
  /** Every password hash a request causes goes through it (bounded: 503 when busy). */
  hashing: PasswordHashing;
  metrics: Metrics;
  /** The connected clusters (flags, workloads); undefined when the server runs without Kubernetes. */
  clusters: ClusterRegistry | undefined;
  /** Milliseconds since the epoch; injectable so that tests can pass 24 hours without waiting. */
  now: () => number;
}
