export * from "./crds.ts";
export * from "./local-control-plane.ts";
export * from "./namespaces.ts";
export * from "./ports.ts";
