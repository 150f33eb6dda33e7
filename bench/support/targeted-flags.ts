// The targeted flags of the memory benches (bench/node/sidecar-memory.ts in a pod,
// bench/node/flagd-compile-memory.ts outside it): the same flags, so their figures compare.
import type { EvaluatedSpec } from "@svc/core/targeting/flagd";

/** Flag i: two variants, and a 50/50 fractional split (even i) or a tenant allow-list (odd i). */
export function targetedSpec(i: number): EvaluatedSpec {
  const variants = { a: `value ${i} a of a targeted flag`, b: `value ${i} b of a targeted flag` };
  const targeting =
    i % 2 === 0
      ? {
          fractional: [
            ["a", 50],
            ["b", 50],
          ],
        }
      : { if: [{ in: [{ var: "tenant" }, [`tenant-${i}`, `tenant-${i + 1}`]] }, "b", "a"] };
  return { type: "string", defaultValue: variants.a, variants, defaultVariant: "a", targeting };
}
