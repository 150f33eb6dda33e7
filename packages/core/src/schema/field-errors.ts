// The one shape of a refused input, for request bodies and settings alike. Imports nothing, so
// that every process (the sidecar on Bun included) can report its configuration errors with it.

/** One problem with an input, named by the dotted path of the field it concerns. */
export interface FieldError {
  field: string;
  message: string;
}

export type Validated<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/** "a.b: message; c: message", the form in which an API error names its fields. */
export function describeErrors(errors: readonly FieldError[]): string {
  return errors.map((e) => (e.field === "" ? e.message : `${e.field}: ${e.message}`)).join("; ");
}

/** Joins a parent path and a child name the way fields are named to users ("delivery.envVar"). */
export function fieldPath(parent: string, child: string): string {
  return parent === "" ? child : `${parent}.${child}`;
}

/** The value, or an Error naming every problem: for callers that cannot go on without it (svc dev, tests). */
export function validOrThrow<T>(result: Validated<T>): T {
  if (!result.ok) throw new Error(describeErrors(result.errors));
  return result.value;
}
