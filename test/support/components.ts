// The shared control plane's and node's components, killed and restarted from a test file: they
// are children of vitest's main process (test/control-plane.global-setup.ts), which does it.
import { inject } from "vitest";

export type SharedComponent =
  "etcd" | "kube-apiserver" | "kube-controller-manager" | "kubelet" | "containerd";

async function act(action: "kill" | "start", component: SharedComponent): Promise<void> {
  const reply = await fetch(`${inject("componentsUrl")}/${action}/${component}`, { method: "POST" });
  if (reply.status !== 204) throw new Error(`${action} ${component}: ${reply.status} ${await reply.text()}`);
}

/** SIGKILL: a crash, no shutdown. */
export const killComponent = (component: SharedComponent) => act("kill", component);
/** Started again the same way, once it is ready (a no-op when it runs). */
export const startComponent = (component: SharedComponent) => act("start", component);
