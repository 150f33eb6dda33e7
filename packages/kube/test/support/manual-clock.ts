// The work queue tests' clock.
import type { QueueClock } from "../../src/work-queue.ts";

/** A clock the test moves: timers fire only when `advance` passes their time. */
export function manualClock(): QueueClock & { advance(ms: number): void; pending(): number } {
  let now = 0;
  const timers = new Set<{ at: number; run: () => void }>();
  return {
    now: () => now,
    after(ms, run) {
      const timer = { at: now + ms, run };
      timers.add(timer);
      return () => timers.delete(timer);
    },
    advance(ms) {
      now += ms;
      for (const timer of [...timers].sort((a, b) => a.at - b.at)) {
        if (timer.at > now) continue;
        timers.delete(timer);
        timer.run();
      }
    },
    pending: () => timers.size,
  };
}
