// A writer's calls share one connection pool: client-node's request context builds a new undici
// dispatcher each time it is asked for credentials, so the transport asks it once, for the pool,
// and takes each request's credentials (a rotated token read again) without building another.
import { afterAll, beforeAll, expect, it } from "vitest";
import { KubeConfig } from "@kubernetes/client-node";
import { testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import { ObjectWriter } from "../src/apply.ts";

const kc = new KubeConfig();
kc.loadFromString(testKubeConfig().exportConfig());
let pools = 0;
const applySecurityAuthentication = kc.applySecurityAuthentication.bind(kc);
kc.applySecurityAuthentication = (context) => {
  pools++;
  return applySecurityAuthentication(context);
};
const writer = new ObjectWriter(kc, { timeoutMs: 10_000 });
let ns: string;

beforeAll(async () => {
  ns = await testNamespace(testKubeConfig(), "transport-pool");
});

afterAll(async () => {
  await writer.close();
});

it("twenty writes and reads of one writer build one connection pool", async () => {
  for (let i = 0; i < 5; i++) {
    const ref = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `pool-${i}`, namespace: ns } };
    await writer.create({ ...ref, data: { n: String(i) } });
    expect(await writer.read<{ data: { n: string } }>(ref)).toMatchObject({ data: { n: String(i) } });
    await writer.apply({ ...ref, data: { n: `${i}!` } }, { force: true });
    expect(await writer.remove(ref)).toBe(true);
  }
  expect(pools).toBe(1);
});
