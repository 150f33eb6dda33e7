// `svc flags rollout watch` against a fake client and clock: a line per change until the plan
// finishes, exit 0 only when it succeeded, reads that fail for a while tried again, a refusal
// (404) ending it, and stopping (Ctrl-C) ending the read in flight with exit 130.
import type { FlagRolloutStatus } from "@svc/core";
import { describe, expect, it } from "vitest";
import { ApiError, ExitError } from "../src/flags/client.ts";
import type { Output } from "../src/flags/options.ts";
import type { RolloutView } from "../src/flags/rollout-render.ts";
import { watchPlan, type WatchIo } from "../src/flags/rollout-watch.ts";

const base: RolloutView = {
  name: "p",
  author: "ed",
  createdAt: "2026-11-27T10:00:00Z",
  spec: {
    flag: { namespace: "shop", name: "a" },
    change: { enabled: true },
    waves: [{ clusters: ["local"] }],
  },
  status: {},
};
const at = (status: FlagRolloutStatus): RolloutView => ({ ...base, status });
const wave = (phase: "Applying" | "Baking" | "Succeeded" | "RolledBack") => ({
  phase,
  clusters: [{ id: "local", phase }],
});

/** A fake API answering each read with the next of `answers` (the last one again when they run out). */
function fake(answers: (RolloutView | Error)[], output: Output = "table", stopAfterReads = Infinity) {
  const out: string[] = [];
  const err: string[] = [];
  const controller = new AbortController();
  let reads = 0;
  let clock = Date.parse("2026-11-27T10:00:00Z");
  const io: WatchIo = {
    read: () => {
      const answer = answers[Math.min(reads++, answers.length - 1)];
      if (reads >= stopAfterReads) controller.abort(130);
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer as RolloutView);
    },
    write: (text) => out.push(text),
    warn: (text) => err.push(text),
    sleep: (ms) => {
      clock += ms;
      return Promise.resolve();
    },
    now: () => new Date(clock),
    signal: controller.signal,
  };
  const run = watchPlan("p", output, 2000, io);
  return { run, out, err, reads: () => reads };
}

describe("watch", () => {
  it("prints each change once, with the time read, and returns when the plan succeeded", async () => {
    const { run, out } = fake([
      base,
      base,
      at({ phase: "Progressing", currentWave: 0, waves: [wave("Applying")] }),
      at({ phase: "Progressing", currentWave: 0, waves: [wave("Baking")] }),
      at({ phase: "Succeeded", currentWave: 0, waves: [wave("Succeeded")], message: "every wave passed" }),
    ]);
    await expect(run).resolves.toBeUndefined();
    expect(out.join("")).toBe(
      [
        "2026-11-27T10:00:00Z  plan p Pending",
        "2026-11-27T10:00:04Z  plan p Progressing",
        "2026-11-27T10:00:04Z  wave 0 Applying",
        "2026-11-27T10:00:04Z  wave 0 cluster local Applying",
        "2026-11-27T10:00:06Z  wave 0 Baking",
        "2026-11-27T10:00:06Z  wave 0 cluster local Baking",
        "2026-11-27T10:00:08Z  plan p Succeeded: every wave passed",
        "2026-11-27T10:00:08Z  wave 0 Succeeded",
        "2026-11-27T10:00:08Z  wave 0 cluster local Succeeded",
        "",
      ].join("\n"),
    );
  });

  it("exits 1 with the plan's message when it rolled back, failed or was rejected", async () => {
    for (const phase of ["RolledBack", "Failed", "Rejected"] as const) {
      const { run } = fake([base, at({ phase, message: "wave 0's gate failed" })]);
      const error = await run.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ExitError);
      expect(error).toMatchObject({ code: 1, message: `plan p ${phase}: wave 0's gate failed` });
    }
  });

  it("tries again while the server cannot answer, saying so once, and goes on", async () => {
    const { run, out, err } = fake([
      base,
      new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED 127.0.0.1:8090") }),
      new ApiError(503, "503 no connection to Kubernetes"),
      at({ phase: "Succeeded" }),
    ]);
    await expect(run).resolves.toBeUndefined();
    expect(err).toEqual([
      "cannot read plan p (fetch failed: connect ECONNREFUSED 127.0.0.1:8090); trying again every 2s\n",
      "plan p read again\n",
    ]);
    expect(out).toHaveLength(2);
  });

  it("ends on a refusal that trying again cannot fix (the plan deleted: 404, exit 3)", async () => {
    const { run, reads } = fake([base, new ApiError(404, "404 plan p not found")]);
    await expect(run).rejects.toMatchObject({ status: 404 });
    expect(reads()).toBe(2);
  });

  it("stops when its signal aborts, with the signal's exit code and where the plan is", async () => {
    const { run, reads } = fake([base, at({ phase: "Progressing" })], "table", 3);
    await expect(run).rejects.toMatchObject({
      code: 130,
      message: "stopped watching; plan p goes on (Progressing): svc flags rollout get p",
    });
    expect(reads()).toBe(3);
    // Stopped during a read: the read ends (its request aborted), and so does the watch.
    const midRead = fake([base, new DOMException("This operation was aborted", "AbortError")], "table", 2);
    await expect(midRead.run).rejects.toMatchObject({
      code: 130,
      message: "stopped watching; plan p goes on (Pending): svc flags rollout get p",
    });
  });

  it("prints the plan itself as one JSON line per change with -o json", async () => {
    const { run, out } = fake([base, base, at({ phase: "Succeeded" })], "json");
    await run;
    expect(out.map((line) => (JSON.parse(line) as RolloutView).status)).toEqual([{}, { phase: "Succeeded" }]);
  });
});
