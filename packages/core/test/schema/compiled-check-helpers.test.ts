// The helpers the generated checks call instead of TypeBox's (compiled-check-helpers.ts) answer as
// TypeBox's own: the same code point counts, and the same duplicates for uniqueItems.
import fc from "fast-check";
import { Guard as TypeBoxGuard } from "typebox/guard";
import { Hashing as TypeBoxHashing } from "typebox/system";
import { describe, expect, it } from "vitest";
import { Guard, Hashing } from "../../src/schema/compiled-check-helpers.ts";

/** Any UTF-16 string: lone and paired surrogates included. */
const utf16 = fc
  .array(fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.integer({ min: 0xd800, max: 0xdfff })), {
    maxLength: 12,
  })
  .map((units) => String.fromCharCode(...units));

describe("compiled check helpers", () => {
  it("count code points as TypeBox does", () => {
    for (const text of [
      "",
      "abc",
      "\u{1F600}",
      "\uD800",
      "\uDC00\uD800",
      "\uD800\uD800\uDC00",
      "a\uDC00\uDC00",
    ])
      expect(Guard.CodePointCount(text)).toBe(TypeBoxGuard.CodePointCount(text));
    fc.assert(fc.property(utf16, (text) => Guard.CodePointCount(text) === TypeBoxGuard.CodePointCount(text)));
  });

  it("take two JSON values as the same exactly when TypeBox's hash does", () => {
    const json = fc.oneof(fc.jsonValue({ maxDepth: 2 }), utf16, fc.constantFrom(0, -0, "a\nb", "\uFFFD"));
    const same = (a: unknown, b: unknown) => [
      Hashing.Hash(a) === Hashing.Hash(b),
      TypeBoxHashing.Hash(a) === TypeBoxHashing.Hash(b),
    ];
    // Encodings without a length or an end: TypeBox takes these pairs as duplicates, so must we.
    for (const [a, b] of [
      [[["a"], "b"], [["a", "b"]]],
      [["a", "b"], ["a\nb"]],
      ["\uD800", "\uFFFD"],
      [
        { b: 1, a: [2] },
        { a: [2], b: 1 },
      ],
      [0, -0],
      ["x", "y"],
    ] as const) {
      const [ours, theirs] = same(a, b);
      expect(ours).toBe(theirs);
    }
    fc.assert(
      fc.property(json, json, (a, b) => {
        const [ours, theirs] = same(a, b);
        expect(ours).toBe(theirs);
      }),
    );
    fc.assert(
      fc.property(json, (a) => {
        expect(Hashing.Hash(a)).toBe(Hashing.Hash(structuredClone(a)));
      }),
    );
  });
});
