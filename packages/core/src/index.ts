export * from "./names.ts";
export * from "./validation.ts";
export * from "./schema.ts";
export * from "./flag.ts";
export * from "./cluster-connection.ts";
export * from "./crd.ts";
export * from "./rbac.ts";
