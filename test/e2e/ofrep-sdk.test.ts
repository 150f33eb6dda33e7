// An application's view of targeting, in a real pod on the real node: the OpenFeature server SDK
// with the OFREP provider evaluates a 50/50 `fractional` rollout against the injected sidecar for
// 10,000 targetingKeys. The split is fair, each key keeps its variant when the sidecar restarts
// (a new pod) and when the operator restarts, and every answer is flagd-core's for the same flagd
// definition. The sidecar answers its pod's own containers only: the test reaches it through a
// relay container in the pod, at the pod's IP (test/support/sidecar-relay.ts), not through the
// kube-apiserver's proxy, which would add a TLS round trip to each of the 30,000 evaluations.
// The TypeScript example of docs/openfeature.md is run as a reader would copy it, against the same pod.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { CoreV1Api, AppsV1Api, type V1Pod } from "@kubernetes/client-node";
import { FlagdCore } from "@openfeature/flagd-core";
import { OFREPProvider } from "@openfeature/ofrep-provider";
import { OpenFeature } from "@openfeature/server-sdk";
import { SIDECAR_CONTAINER_NAME } from "@svc/core";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  flagClient,
  operatorScope,
  startOperator,
  type OperatorScope,
} from "../../packages/operator/test/support/operator.ts";
import type { RunningOperator } from "../../packages/operator/src/index.ts";
import { eventually, testKubeConfig, testNamespace } from "../support/kube.ts";
import { demoPodTemplate, describeOnNode, readyPods } from "../support/node.ts";
import { sidecarRelay } from "../support/sidecar-relay.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const kc = testKubeConfig();
const apps = kc.makeApiClient(AppsV1Api);
const core = kc.makeApiClient(CoreV1Api);
const APP = "ofrep-app";
const SIDECAR_PORT = 8610;
const RELAY_PORT = 8611;
const KEYS = Array.from({ length: 10_000 }, (_, i) => `user-${i}`);
/** The flagd key, free text as flagd users write it: the sidecar serves and buckets under it. */
const FLAG_KEY = "checkout.NewFlow";
const SPLIT = {
  fractional: [
    ["on", 50],
    ["off", 50],
  ],
};
/** The same flag in flagd's own definition format, as a flagd user would load it. */
const FLAGD_DEFINITION = {
  flags: {
    [FLAG_KEY]: {
      state: "ENABLED",
      variants: { on: true, off: false },
      defaultVariant: "off",
      targeting: SPLIT,
    },
  },
};
let ns = "";
let scope: OperatorScope;
let operator: RunningOperator | undefined;

interface Answer {
  variant: string | undefined;
  value: boolean;
  reason: string | undefined;
  errorCode: string | undefined;
}

const withSidecar = (pod: V1Pod) =>
  pod.spec?.initContainers?.some((c) => c.name === SIDECAR_CONTAINER_NAME) === true;

/** The app's pod once it is the only one, Ready, with its sidecar injected, and not `other`. */
async function sidecarPod(other = ""): Promise<V1Pod> {
  const pods = await eventually(
    () => readyPods(kc, ns, APP, 1, 150_000),
    ([pod]) => pod !== undefined && withSidecar(pod) && pod.metadata?.name !== other,
    "the app's pod, Ready with its sidecar",
    150_000,
  );
  return pods[0] as V1Pod;
}

/** Each key's answer from the SDK, through the relay of `pod` (a provider of its own per pod). */
async function evaluate(pod: V1Pod, keys: string[]): Promise<Map<string, Answer>> {
  const domain = pod.metadata?.name ?? "";
  const provider = new OFREPProvider({ baseUrl: `http://${pod.status?.podIP ?? ""}:${RELAY_PORT}` });
  await OpenFeature.setProviderAndWait(domain, provider);
  const client = OpenFeature.getClient(domain);
  const answers = new Map<string, Answer>();
  for (let start = 0; start < keys.length; start += 50)
    await Promise.all(
      keys.slice(start, start + 50).map(async (targetingKey) => {
        const details = await client.getBooleanDetails(FLAG_KEY, false, { targetingKey });
        const { variant, value, reason, errorCode } = details;
        answers.set(targetingKey, { variant, value, reason, errorCode });
      }),
    );
  return answers;
}

/** The app's pod once its sidecar answers the flag (it may list its flags after the pod is Ready). */
async function answeringPod(): Promise<V1Pod> {
  const pod = await sidecarPod();
  await eventually(
    async () => (await evaluate(pod, KEYS.slice(0, 1)).catch(() => undefined))?.get(KEYS[0] ?? ""),
    (answer) => answer !== undefined && answer.errorCode === undefined,
    `the sidecar of ${pod.metadata?.name ?? ""} evaluating ${FLAG_KEY}`,
    60_000,
  );
  return pod;
}

const flagd = new FlagdCore();
flagd.setConfigurations(JSON.stringify(FLAGD_DEFINITION));

/** flagd-core's answer for the flagd definition of the flag, the reference every answer is held to. */
function flagdAnswer(context: { targetingKey: string } & Record<string, string>): Answer {
  const { variant, value, reason, errorCode } = flagd.resolveBooleanEvaluation(FLAG_KEY, false, context);
  return { variant, value, reason, errorCode };
}

/** The TypeScript block of docs/openfeature.md marked as run by this file, as a reader copies it. */
async function documentedExample(): Promise<string> {
  const doc = await readFile(join(ROOT, "docs/openfeature.md"), "utf8");
  const block = /<!-- run by test\/e2e\/ofrep-sdk\.test\.ts -->\s*```ts\n([\s\S]*?)\n```/.exec(doc)?.[1];
  if (block === undefined)
    throw new Error("docs/openfeature.md has no TypeScript example marked as run by this test");
  return block;
}

/** Deletes the pod and waits for the one its Deployment makes instead. */
async function replacePod(pod: V1Pod): Promise<V1Pod> {
  const old = pod.metadata?.name ?? "";
  await core.deleteNamespacedPod({ namespace: ns, name: old });
  return sidecarPod(old);
}

/** The keys whose answer differs from `expected`'s (a few named, for a readable failure). */
function differing(answers: Map<string, Answer>, expected: Map<string, Answer>): string[] {
  return KEYS.filter((key) => JSON.stringify(answers.get(key)) !== JSON.stringify(expected.get(key)));
}

describeOnNode("OpenFeature SDK with the OFREP provider against the sidecar in a real pod", () => {
  beforeAll(async () => {
    ns = await testNamespace(kc, "ofrep");
    scope = await operatorScope(kc, "ofrep", [ns]);
    operator = await startOperator(scope);
    const template = demoPodTemplate(APP);
    const relay = sidecarRelay(SIDECAR_PORT, RELAY_PORT);
    await apps.createNamespacedDeployment({
      namespace: ns,
      body: {
        metadata: { name: APP },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: APP } },
          template: { ...template, spec: { ...template.spec, containers: [relay] } },
        },
      },
    });
    await flagClient(kc, ns).create("new-checkout", {
      type: "boolean",
      key: FLAG_KEY,
      defaultValue: "false",
      variants: { on: "true", off: "false" },
      defaultVariant: "off",
      targeting: SPLIT,
      delivery: { sidecar: { port: SIDECAR_PORT, selector: { matchLabels: { app: APP } } } },
    });
  });

  afterAll(async () => {
    await OpenFeature.close();
    await operator?.close();
  });

  it("a 50/50 fractional split over 10,000 keys is fair, stable across sidecar and operator restarts, and flagd-core's", async () => {
    const first = await answeringPod();
    const recorded = await evaluate(first, KEYS);

    const expected = new Map(KEYS.map((targetingKey) => [targetingKey, flagdAnswer({ targetingKey })]));
    expect(differing(recorded, expected).slice(0, 5)).toEqual([]);
    const on = [...recorded.values()].filter((a) => a.variant === "on").length;
    console.info(`fractional 50/50 over ${KEYS.length} keys: ${((100 * on) / KEYS.length).toFixed(2)} % on`);
    expect(on / KEYS.length).toBeGreaterThanOrEqual(0.48);
    expect(on / KEYS.length).toBeLessThanOrEqual(0.52);
    expect(new Set([...recorded.values()].map((a) => a.variant))).toEqual(new Set(["on", "off"]));

    // The sidecar restarted: a new pod, a new sidecar process that loads the flag afresh.
    const second = await replacePod(first);
    expect(differing(await evaluate(second, KEYS), recorded).slice(0, 5)).toEqual([]);

    // The operator restarted (as the harness runs it: in this process), then a pod made under it.
    await operator?.close();
    operator = await startOperator(scope);
    const third = await replacePod(second);
    expect(differing(await evaluate(third, KEYS), recorded).slice(0, 5)).toEqual([]);
  }, 600_000);

  it("the TypeScript example of docs/openfeature.md, run as written, answers what flagd answers", async () => {
    const pod = await answeringPod();
    // Inside the repository, so that its imports resolve as in an application that installed them.
    await mkdir(join(ROOT, ".cache"), { recursive: true });
    const dir = await mkdtemp(join(ROOT, ".cache", "openfeature-example-"));
    try {
      const file = join(dir, "example.ts");
      await writeFile(file, await documentedExample());
      const { stdout } = await promisify(execFile)(process.execPath, [file], {
        env: { ...process.env, OFREP_ENDPOINT: `http://${pod.status?.podIP ?? ""}:${RELAY_PORT}` },
        timeout: 60_000,
      });
      const { value, variant, reason } = flagdAnswer({ targetingKey: "user-1", plan: "pro" });
      expect(JSON.parse(stdout)).toEqual({ value, variant, reason });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
