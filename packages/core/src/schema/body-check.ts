/**
 * A REST request body's schema as checks compiled ahead of time (the `*.generated.ts` modules,
 * from packages/core/scripts/generate-validators.ts): what the dashboard runs on a body before it
 * sends it, so that a form refuses what the API's own schema (the same TypeBox schema, compiled
 * at run time in the API) would refuse. Imports nothing: it is bundled for the browser.
 */

/** One property of a body: its own schema's check, and its bounds in words ("" when none). */
export interface FieldCheck {
  readonly check: (value: unknown) => boolean;
  readonly bounds: string;
}

export interface BodyCheck<T> {
  /** The schema of the whole body, exactly as the API checks it. */
  readonly check: (value: unknown) => value is T;
  /** Each property the body may have, by name. */
  readonly fields: Readonly<Record<string, FieldCheck>>;
  /** The properties it must have. */
  readonly required: readonly string[];
}

/**
 * Why the API's schema refuses the body, by top-level field (the API names fields the same way),
 * each a reason without the field's name; empty when the schema accepts it. A refusal of the
 * body as a whole that no field explains is under "".
 */
export function schemaRefusals<T>(schema: BodyCheck<T>, body: unknown): Record<string, string> {
  if (schema.check(body)) return {};
  const refusals: Record<string, string> = {};
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    refusals[""] = "the body must be a JSON object";
    return refusals;
  }
  const given = body as Record<string, unknown>;
  // A property set to undefined is not sent (JSON has no undefined).
  for (const field of schema.required) if (given[field] === undefined) refusals[field] = "is required";
  for (const [field, value] of Object.entries(given)) {
    const own = schema.fields[field];
    if (value === undefined) continue;
    if (own === undefined) refusals[field] = "is not a field the API takes";
    else if (!own.check(value))
      refusals[field] =
        own.bounds === "" ? "refused by the API's schema" : `refused by the API's schema: ${own.bounds}`;
  }
  if (Object.keys(refusals).length === 0) refusals[""] = "the API's schema refuses this body";
  return refusals;
}

/**
 * The refusals that no problem the form found itself explains: a field with a problem of its own
 * (or a problem under one of its parts, "delivery.envVar.name" for "delivery") keeps that one.
 */
export function unexplainedRefusals(
  refusals: Readonly<Record<string, string>>,
  problemFields: readonly string[],
): [field: string, reason: string][] {
  return Object.entries(refusals).filter(
    ([field]) =>
      field === "" ||
      !problemFields.some(
        (known) => known === field || known.startsWith(`${field}.`) || field.startsWith(`${known}.`),
      ),
  );
}
