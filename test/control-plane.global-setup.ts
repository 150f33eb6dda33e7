// Starts the one real control plane that every integration test file shares, and stops it
// after the run whatever the tests did. Files isolate themselves by namespace.
import type { TestProject } from "vitest/node";
import { startLocalControlPlane } from "@svc/kube/testing";

declare module "vitest" {
  export interface ProvidedContext {
    kubeconfigPath: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const controlPlane = await startLocalControlPlane();
  project.provide("kubeconfigPath", controlPlane.kubeconfigPath);
  return () => controlPlane.stop();
}
