export { buildApiServer, type ApiServer, type ApiServerOptions } from "./server.ts";
export { parseApiConfig, type ApiConfig, type DatabaseConfig } from "./config.ts";
export { openStore } from "./store/db.ts";
export { UsersRepo } from "./users/store.ts";
export { AuditRepo } from "./audit/store.ts";
export { isAdminPassword, resetAdminPassword, INITIAL_ADMIN } from "./users/admin.ts";
