// Test-only machinery (`@svc/kube/testing`): a real control plane on this machine and the child
// process supervision under it. Never imported by a production command: loading it installs
// exit hooks that kill supervised children.
export * from "./child-process.ts";
export * from "./local-control-plane.ts";
