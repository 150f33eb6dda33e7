// The injected sidecar answers its pod's own containers only (loopback peers). A test or bench on
// the host reaches it through this relay: a container of the same pod, in the demo image's Node,
// that pipes each connection on the pod's IP to the sidecar on 127.0.0.1. The host is the pod
// network's gateway, so it reaches the pod's IP directly.
import type { V1Container } from "@kubernetes/client-node";
import { DEMO_IMAGE } from "../../packages/cli/src/dev/demo.ts";

/** A container relaying `relayPort` on the pod's IP to the sidecar's `sidecarPort` on loopback. */
export function sidecarRelay(sidecarPort: number, relayPort: number): V1Container {
  const script = `const net = require("node:net");
net.createServer((client) => {
  const sidecar = net.connect(${sidecarPort}, "127.0.0.1");
  client.on("error", () => sidecar.destroy());
  sidecar.on("error", () => client.destroy());
  client.pipe(sidecar).pipe(client);
}).listen(${relayPort});`;
  return {
    name: "relay",
    image: DEMO_IMAGE,
    command: ["node", "-e", script],
    ports: [{ name: "relay", containerPort: relayPort }],
    readinessProbe: { tcpSocket: { port: relayPort }, periodSeconds: 1 },
    securityContext: { readOnlyRootFilesystem: true, runAsNonRoot: true, allowPrivilegeEscalation: false },
  };
}
