// The seed of a test run's randomness (fast-check's properties): from SVC_TEST_SEED when set, so
// that a failure seen in CI replays locally, else a new one per run (docs/development.md
// "Replaying a random failure").

/** fast-check takes a 32-bit integer seed. */
const MAX_SEED = 2 ** 31 - 1;

/** SVC_TEST_SEED as a seed, undefined when unset; anything but an integer of 0..2^31-1 is refused. */
export function parseTestSeed(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  const seed = Number(text);
  if (!/^\d+$/.test(text.trim()) || seed > MAX_SEED) {
    throw new Error(`SVC_TEST_SEED must be an integer from 0 to ${MAX_SEED}, got ${JSON.stringify(text)}`);
  }
  return seed;
}

/** A new seed for a run that was not given one. */
export function newTestSeed(random: () => number = Math.random): number {
  return Math.floor(random() * (MAX_SEED + 1));
}
