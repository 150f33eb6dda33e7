// The iptables guard of a control plane's kube-apiserver that listens on every address (so that
// pods reach it): connections to its port from neither loopback nor the pod network's bridge are
// dropped. One chain serves every guarded port; setting it up adopts a chain an earlier, crashed
// run left, and removing one port's guard leaves the chain while another port still jumps to it.
import { execFileSync } from "node:child_process";
import { quiet } from "./host-commands.ts";
import { API_GUARD_CHAIN, POD_NETWORK } from "./node-host.ts";

function inputJump(port: number): string[] {
  return ["INPUT", "-p", "tcp", "--dport", String(port), "-j", API_GUARD_CHAIN];
}

/** Drops connections to `port` that come from neither loopback nor the pod network's bridge. */
export function guardPort(port: number): void {
  // Created, or adopted with its rules made again (they are the same for every port).
  quiet("iptables", ["-N", API_GUARD_CHAIN]);
  execFileSync("iptables", ["-F", API_GUARD_CHAIN]);
  for (const iface of ["lo", POD_NETWORK.bridge])
    execFileSync("iptables", ["-A", API_GUARD_CHAIN, "-i", iface, "-j", "RETURN"]);
  execFileSync("iptables", ["-A", API_GUARD_CHAIN, "-j", "DROP"]);
  while (quiet("iptables", ["-D", ...inputJump(port)]).ok);
  execFileSync("iptables", ["-I", ...inputJump(port)]);
}

/** Removes `port`'s guard, and the chain once no port jumps to it any more. Never throws. */
export function unguardPort(port: number): void {
  while (quiet("iptables", ["-D", ...inputJump(port)]).ok);
  const input = quiet("iptables", ["-S", "INPUT"]).out;
  if (input.includes(`-j ${API_GUARD_CHAIN}`)) return;
  quiet("iptables", ["-F", API_GUARD_CHAIN]);
  quiet("iptables", ["-X", API_GUARD_CHAIN]);
}
