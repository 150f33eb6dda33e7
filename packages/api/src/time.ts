/**
 * How the API writes a time: ISO 8601 UTC with milliseconds, fixed width, so that stored
 * timestamps compare as text. Imports nothing, so any module may use it without a cycle.
 */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** Date.UTC, except that years 0-99 stay themselves (Date.UTC reads them as 1900-1999). */
function utc(year: number, monthIndex: number, day: number, hour = 0, minute = 0, second = 0): number {
  const date = new Date(Date.UTC(2000, 0, 1, hour, minute, second));
  date.setUTCFullYear(year, monthIndex, day);
  return date.getTime();
}

const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|([+-])(\d{2}):?(\d{2}))?)?$/i;

/**
 * An ISO 8601 date or date-time as ms since the epoch, or undefined when it is not one or names
 * a moment that does not exist (2026-02-31, 24:00). Without an offset the time is UTC. Date.parse
 * alone accepts too much ("May 5") and rolls impossible dates over (February 31 → March 3).
 */
export function parseIsoTime(raw: string): number | undefined {
  const match = ISO_TIME.exec(raw);
  if (match === null) return undefined;
  // Groups that did not match (no time, no seconds) are undefined: they count as 0.
  const part = (index: number): number => Number(match[index] ?? 0);
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map(part) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const fraction = part(7);
  const offsetSign = match[9] === "-" ? -1 : 1;
  const offsetHours = part(10);
  const offsetMinutes = part(11);
  const daysInMonth = new Date(utc(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const local = utc(year, month - 1, day, hour, minute, second) + Math.round(fraction * 1000);
  return local - offsetSign * (offsetHours * 60 + offsetMinutes) * 60_000;
}
