// Whether a login's answer time tells an attacker that a username exists. A wrong password for an
// existing user and any password for an unknown user must take the same time: the unknown user
// is checked against a dummy bcrypt hash of the same cost (packages/api/src/auth/passwords.ts).
// Without it the unknown user's answer comes back in about a millisecond, against about 250 ms:
// the ratio below would be near 0, far outside the band. The two kinds are interleaved so that
// the machine's other load falls on both alike, each first in every other pair; medians, so that a stray pause does not count.
// In the reliability project, which runs alone, after every other test.
import { afterAll, describe, expect, it } from "vitest";
import { LOGIN_FAILURE_LIMIT } from "../../packages/api/src/auth/throttle.ts";
import {
  BACKENDS,
  userWithRole,
  withOwnServer,
  type TestApi,
} from "../../packages/api/test/support/harness.ts";
import { writeReport } from "./report.ts";

const SAMPLES = 25;
const rows: string[] = [];

async function timedLogin(api: TestApi, username: string, password: string): Promise<number> {
  const started = performance.now();
  const reply = await api.call("POST", "/api/v1/auth/login", { body: { username, password } });
  const ms = performance.now() - started;
  expect(reply.status, `login of ${username}`).toBe(401);
  return ms;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};
const percentile90 = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.9) - 1] ?? NaN;

describe.each(BACKENDS)("login timing on $name", (backend) => {
  it("answers a wrong password for an existing user and a login of an unknown user in the same time", async () => {
    await withOwnServer(backend, async (api) => {
      const existing = await userWithRole(api, "viewer");
      const known: number[] = [];
      const unknown: number[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        // The throttle would answer 429 at once after LOGIN_FAILURE_LIMIT failures: its window is
        // moved past instead (the server's clock is the test's).
        if (i > 0 && i % (LOGIN_FAILURE_LIMIT - 1) === 0) api.clock.offsetMs += 15 * 60 * 1000;
        const knownLogin = () => timedLogin(api, existing.username, `wrong-password-${i}`);
        const unknownLogin = () => timedLogin(api, `nobody-${i}-${backend.name}`, `wrong-password-${i}`);
        // Each goes first in every other pair: the first of two requests may pay for a cold path.
        if (i % 2 === 0) {
          known.push(await knownLogin());
          unknown.push(await unknownLogin());
        } else {
          unknown.push(await unknownLogin());
          known.push(await knownLogin());
        }
      }
      const ratio = median(unknown) / median(known);
      rows.push(
        `| ${backend.name} | ${SAMPLES} + ${SAMPLES} | ${median(known).toFixed(0)} / ${percentile90(known).toFixed(0)} ms | ${median(unknown).toFixed(0)} / ${percentile90(unknown).toFixed(0)} ms | ${ratio.toFixed(3)} |`,
      );
      // ±20 %: noise on a shared machine stays well inside it; a missing dummy hash gives ~0.004.
      expect(ratio).toBeGreaterThan(0.8);
      expect(ratio).toBeLessThan(1.25);
    });
  });
});

afterAll(() => {
  writeReport(
    "login-timing",
    [
      "| backend | logins (interleaved) | existing user, wrong password: p50 / p90 | unknown user: p50 / p90 | ratio of medians (unknown ÷ existing) |",
      "| --- | ---: | ---: | ---: | ---: |",
      ...rows,
    ].join("\n"),
  );
});
