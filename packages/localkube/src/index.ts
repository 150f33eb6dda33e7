// `@svc/localkube`: a real control plane and node on this machine and the child process
// supervision under them, for `svc dev`, the test harnesses and the benchmarks. Never imported by
// a production command (eslint.config.js): loading it installs exit hooks that kill supervised
// children.
export * from "./child-process.ts";
export * from "./local-control-plane.ts";
export * from "./local-node.ts";
export * from "./register-cluster.ts";
export { POD_NETWORK } from "./node-host.ts";
export { describeFailures } from "./leftovers.ts";
export { markOwner, reclaimStale } from "./reclaim.ts";
export {
  createCertificateAuthority,
  issueServingCertificate,
  type Certificate,
  type CertificateAuthority,
} from "./pki.ts";
