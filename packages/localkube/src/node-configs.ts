/**
 * The local node's configuration files, rendered: containerd's, the CNI network's, the
 * kubelet's and kube-proxy's (local-node.ts writes them and starts the components).
 */
import { join } from "node:path";
import { POD_NETWORK } from "./node-host.ts";

/** containerd's sandbox ("pause") image: built here (make images), never pulled. */
export const PAUSE_IMAGE = "registry.k8s.io/pause:3.10";

export const CNI_BIN_DIR = "/usr/lib/cni";

export interface NodeTaint {
  key: string;
  value?: string;
  effect: "NoSchedule" | "PreferNoSchedule" | "NoExecute";
}

/** What the kubelet's configuration takes from the node's options (LocalNodeOptions). */
export interface KubeletSettings {
  taints?: readonly NodeTaint[];
  syncFrequencySeconds?: number;
}

export function containerdConfig(dir: string, socket: string): string {
  return `version = 2
root = "${join(dir, "containerd/root")}"
state = "${join(dir, "containerd/state")}"
[grpc]
  address = "${socket}"
[plugins."io.containerd.internal.v1.opt"]
  path = "${join(dir, "containerd/opt")}"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${PAUSE_IMAGE}"
  # runc cannot lower oom_score_adj without CAP_SYS_RESOURCE (root in a container often lacks
  # it): without this, every container fails with "can't get final child's PID from pipe: EOF".
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "${CNI_BIN_DIR}"
    conf_dir = "${join(dir, "cni")}"
`;
}

export function cniConfig(dir: string): string {
  return JSON.stringify({
    cniVersion: "1.0.0",
    name: "svc-pods",
    plugins: [
      {
        type: "bridge",
        bridge: POD_NETWORK.bridge,
        isGateway: true,
        ipMasq: true,
        hairpinMode: true,
        ipam: {
          type: "host-local",
          ranges: [[{ subnet: POD_NETWORK.subnet, gateway: POD_NETWORK.gateway }]],
          routes: [{ dst: "0.0.0.0/0" }],
          dataDir: join(dir, "cni-ipam"),
        },
      },
    ],
  });
}

export interface KubeletPorts {
  port: number;
  healthzPort: number;
}

export function kubeletConfig(
  dir: string,
  socket: string,
  clientCaPath: string,
  ports: KubeletPorts,
  options: KubeletSettings,
): string {
  const config = {
    apiVersion: "kubelet.config.k8s.io/v1beta1",
    kind: "KubeletConfiguration",
    // The machines this runs on boot cgroup v1 without systemd managing cgroups, and have swap.
    failCgroupV1: false,
    cgroupDriver: "cgroupfs",
    failSwapOn: false,
    containerRuntimeEndpoint: `unix://${socket}`,
    address: POD_NETWORK.gateway,
    port: ports.port,
    readOnlyPort: 0,
    healthzBindAddress: "127.0.0.1",
    healthzPort: ports.healthzPort,
    // Only the kube-apiserver's client certificate (signed by the local client CA) is let in.
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: true },
      x509: { clientCAFile: clientCaPath },
    },
    authorization: { mode: "Webhook" },
    podLogsDir: join(dir, "pod-logs"),
    syncFrequency: `${options.syncFrequencySeconds ?? 60}s`,
    registerWithTaints: options.taints ?? [],
    // The images are imported, never pulled: garbage collection would lose them for good.
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    // A busy test machine's disk is not a reason to evict the pods under test.
    evictionHard: { "memory.available": "100Mi", "nodefs.available": "1%", "imagefs.available": "1%" },
    clusterDomain: "cluster.local",
    serializeImagePulls: false,
  };
  return JSON.stringify(config, null, 2);
}

export function kubeProxyConfig(
  name: string,
  kubeconfig: string,
  ports: { healthzPort: number; metricsPort: number },
): string {
  return JSON.stringify({
    apiVersion: "kubeproxy.config.k8s.io/v1alpha1",
    kind: "KubeProxyConfiguration",
    mode: "iptables",
    clientConnection: { kubeconfig },
    hostnameOverride: name,
    clusterCIDR: POD_NETWORK.subnet,
    healthzBindAddress: `127.0.0.1:${ports.healthzPort}`,
    metricsBindAddress: `127.0.0.1:${ports.metricsPort}`,
    // Leave the machine's conntrack table size alone (a container may not change it).
    conntrack: { maxPerCore: 0 },
  });
}
