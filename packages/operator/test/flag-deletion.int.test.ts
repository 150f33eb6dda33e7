// Deleting many flags at once, each right after a change that makes the operator write its
// status: every write of the operator to a flag carries the flag's uid, so one that reaches a
// flag already gone fails instead of creating it again (server-side apply creates what is
// missing: without the uid, the API server refused such a status write with 422 "spec:
// Required value", logged once per flag).
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import type { RunningOperator } from "../src/index.ts";
import { createWorkloads, flagClient, operatorScope, startOperator } from "./support/operator.ts";

const FLAGS = 1000;
const CONCURRENCY = 25;
const kc = testKubeConfig();
let operator: RunningOperator | undefined;
let flags: ReturnType<typeof flagClient>;
/** Every line the operator logged at warn or above. */
const warnings: string[] = [];

async function inParallel(names: string[], act: (name: string) => Promise<unknown>): Promise<void> {
  const queue = [...names];
  const worker = async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) await act(name);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

beforeAll(async () => {
  const ns = await testNamespace(kc, "op-deletion");
  const scope = await operatorScope(kc, "op-deletion", [ns]);
  await createWorkloads(kc, ns, [{ kind: "Deployment", name: "web", labels: { app: "web" } }]);
  flags = flagClient(kc, ns);
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      warnings.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
  operator = await startOperator(scope, {}, { log: pino({ level: "warn" }, sink) });
}, 180_000);

afterAll(async () => {
  await operator?.close();
});

it(`deletes ${FLAGS} flags with no operator error and none re-created`, async () => {
  const names = Array.from({ length: FLAGS }, (_, i) => `flag-${i}`);
  await inParallel(names, (name) =>
    flags.create(name, {
      type: "string",
      defaultValue: "a",
      // No workload matches: status NoTargets, and nothing to withdraw on deletion.
      delivery: { envVar: { selector: { matchLabels: { app: name } } } },
    }),
  );
  await eventually(
    async () =>
      (await flags.list()) as { metadata: { finalizers?: string[] }; status?: { phase?: string } }[],
    (items) => items.every((f) => f.metadata.finalizers !== undefined && f.status?.phase === "NoTargets"),
    `all ${FLAGS} flags finalized and reported`,
    120_000,
  );
  // A change (the operator writes a new status for it) and at once the deletion.
  await inParallel(names, async (name) => {
    await flags.patchSpec(name, { description: "changed before deletion" });
    await flags.remove(name);
  });
  await eventually(
    () => flags.list(),
    (items) => items.length === 0,
    "every flag gone",
    120_000,
  );
  // The operator's queue drains: a status write still in flight would re-create a flag now.
  await operator?.idle();
  expect(await flags.list()).toEqual([]);
  expect(warnings).toEqual([]);
}, 600_000);
