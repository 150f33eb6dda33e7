/**
 * How the API writes a time: ISO 8601 UTC with milliseconds, fixed width, so that stored
 * timestamps compare as text. Imports nothing, so any module may use it without a cycle.
 */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
