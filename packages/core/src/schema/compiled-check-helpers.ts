/**
 * The two helpers the checks TypeBox compiles ahead of time call (`Guard.CodePointCount` for
 * minLength/maxLength, `Hashing.Hash` for uniqueItems), so that the generated `*.generated.ts`
 * checks run without TypeBox: the dashboard bundles them (its CSP forbids eval, and TypeBox
 * would add its weight). Each answers as TypeBox's own does, which a unit test compares
 * (packages/core/test/schema/compiled-check-helpers.test.ts).
 */

const isHighSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLowSurrogate = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

/** The string's length in Unicode code points: a lone surrogate counts as one, as JSON Schema's. */
function CodePointCount(value: string): number {
  let count = 0;
  for (let i = 0; i < value.length; i++) {
    const paired = i > 0 && isLowSurrogate(value.charCodeAt(i)) && isHighSurrogate(value.charCodeAt(i - 1));
    if (!paired) count++;
  }
  return count;
}

// TypeBox hashes the bytes of a value's encoding (a marker per kind, then its content, with no
// length or end), so two values count as duplicates exactly when their encodings are equal.
// The key here is that encoding itself: the same equalities, without the hash.
const MARKER = { array: 0x0, boolean: 0x2, null: 0x6, number: 0x7, object: 0x8, string: 0xa, undefined: 0xd };
const encoder = new TextEncoder();
const float = new DataView(new ArrayBuffer(8));
/** Numbers the non-JSON values met, each its own key. */
let unlike = 0;

function encode(value: unknown, bytes: number[]): void {
  if (typeof value === "string") {
    bytes.push(MARKER.string, ...encoder.encode(value));
  } else if (typeof value === "number") {
    float.setFloat64(0, value, true);
    bytes.push(MARKER.number);
    for (let i = 0; i < 8; i++) bytes.push(float.getUint8(i));
  } else if (typeof value === "boolean") {
    bytes.push(MARKER.boolean, value ? 1 : 0);
  } else if (value === null) {
    bytes.push(MARKER.null);
  } else if (value === undefined) {
    bytes.push(MARKER.undefined);
  } else if (Array.isArray(value)) {
    bytes.push(MARKER.array);
    for (const item of value as unknown[]) encode(item, bytes);
  } else if (typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    bytes.push(MARKER.object);
    const object = value as Record<string, unknown>;
    for (const key of Object.getOwnPropertyNames(object).sort()) {
      encode(key, bytes);
      encode(object[key], bytes);
    }
  } else {
    // Not a JSON value (a body is built from JSON values only): taken as unlike any other.
    bytes.push(-1, unlike++);
  }
}

/** A key equal for two JSON values exactly when TypeBox's uniqueItems takes them as duplicates. */
function Hash(value: unknown): string {
  const bytes: number[] = [];
  encode(value, bytes);
  return bytes.join(",");
}

export const Guard = { CodePointCount };
export const Hashing = { Hash };
