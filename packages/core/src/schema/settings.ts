// Settings from environment variables, read the same strict way by every svc process. Imports
// nothing at run time (the sidecar loads it at start-up, where every millisecond and megabyte
// counts). A value is either exactly what its rule allows or an error naming the variable: no
// hexadecimal ports, exponents, signs or surrounding spaces slipping through `Number()`.
import type { FieldError, Validated } from "./field-errors.ts";

export type Environment = Readonly<Record<string, string | undefined>>;

/** pino's levels, the values of SVC_LOG_LEVEL. */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Range {
  min: number;
  max: number;
}

/**
 * Reads variables one by one. An unset or empty variable gives its default; a bad one gives the
 * default too and records an error, so that one pass reports every bad variable at once.
 */
export interface SettingsReader {
  /** A TCP port: decimal digits, 0–65535 (0: the system picks a free one). */
  port: (name: string, fallback: number) => number;
  /** Decimal digits within `range` (a positive integer when `range.min` ≥ 1). */
  integer: (name: string, fallback: number, range: Range) => number;
  /** Milliseconds: digits alone, or with one unit: `250ms`, `15s`, `2m`, `1h`. */
  durationMs: (name: string, fallback: number, range: Range) => number;
  /** `true` or `false`. */
  boolean: (name: string, fallback: boolean) => boolean;
  /** One of `allowed`, spelt exactly. */
  oneOf: <T extends string>(name: string, allowed: readonly T[], fallback: T) => T;
  /** Any non-empty text. */
  /** Free text; `accepted` tells the help what it must be when the caller checks it. */
  text: (name: string, fallback: string, accepted?: string) => string;
  /** Records a problem found by a rule of the caller's own (a URL scheme, a required variable). */
  problem: (name: string, message: string) => void;
  /** Every problem so far, in the order the variables were read. */
  readonly errors: readonly FieldError[];
  /** The settings read, or every problem found: the one shape in which every svc command's configuration comes. */
  result: <T>(value: T) => Validated<T>;
}

const DIGITS = /^[0-9]{1,15}$/;
const DURATION = /^([0-9]{1,15})(ms|s|m|h)?$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PORTS: Range = { min: 0, max: 65535 };

/** Milliseconds in the largest unit that divides them: 600000 → "10m". */
function durationText(ms: number): string {
  const unit = (["h", "m", "s"] as const).find((u) => ms > 0 && ms % (UNIT_MS[u] ?? 1) === 0);
  return unit === undefined ? `${ms}ms` : `${ms / (UNIT_MS[unit] ?? 1)}${unit}`;
}

/** The received value, quoted and shortened, for a message. */
function shown(raw: string): string {
  return JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw);
}

/** A setting as a parser reads it: for `--help` and docs/configuration.md. */
export interface SettingUse {
  name: string;
  /** The default, as text ("" when there is none). */
  fallback: string;
  /** What a value must be: "a port number", "true or false"... */
  rule: string;
}

/** Environments whose reads are recorded (see settingsOf), each with its record. */
const recordings = new WeakMap<Environment, SettingUse[]>();

/**
 * The settings a parser reads, in order, with their defaults and rules: found by running it on
 * an empty environment, so that the list is the parser's own and cannot drift from it.
 */
export function settingsOf(parse: (env: Environment) => unknown): SettingUse[] {
  const env: Environment = {};
  const uses: SettingUse[] = [];
  recordings.set(env, uses);
  try {
    parse(env);
  } catch {
    // An empty environment may lack a required setting: the reads made are what counts.
  }
  return uses;
}

export function settingsReader(env: Environment): SettingsReader {
  const errors: FieldError[] = [];
  const recording = recordings.get(env);
  const note = (name: string, fallback: unknown, rule: string) => {
    if (recording !== undefined && !recording.some((use) => use.name === name))
      recording.push({ name, fallback: String(fallback), rule });
  };
  /** The variable's text, or undefined when unset or empty. */
  const raw = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value === "" ? undefined : value;
  };
  const refuse = <T>(name: string, message: string, value: string, fallback: T): T => {
    errors.push({ field: name, message: `${message}, got ${shown(value)}` });
    return fallback;
  };
  const inRange = (value: number, range: Range) => value >= range.min && value <= range.max;

  const integerIn = (name: string, fallback: number, range: Range, what: string): number => {
    note(name, fallback, `${what} between ${range.min} and ${range.max}`);
    const value = raw(name);
    if (value === undefined) return fallback;
    const n = DIGITS.test(value) ? Number(value) : NaN;
    return inRange(n, range)
      ? n
      : refuse(name, `must be ${what} between ${range.min} and ${range.max}`, value, fallback);
  };

  return {
    errors,
    port: (name, fallback) => integerIn(name, fallback, PORTS, "a port number"),
    integer: (name, fallback, range) => integerIn(name, fallback, range, "an integer"),
    durationMs: (name, fallback, range) => {
      note(
        name,
        durationText(fallback),
        `a duration (ms, s, m, h) between ${range.min} ms and ${range.max} ms`,
      );
      const value = raw(name);
      if (value === undefined) return fallback;
      const match = DURATION.exec(value);
      const ms = match ? Number(match[1]) * (UNIT_MS[match[2] ?? "ms"] ?? NaN) : NaN;
      return inRange(ms, range)
        ? ms
        : refuse(
            name,
            `must be a duration (milliseconds, or with a unit: ms, s, m, h) between ${range.min} ms and ${range.max} ms`,
            value,
            fallback,
          );
    },
    boolean: (name, fallback) => {
      note(name, fallback, "true or false");
      const value = raw(name);
      if (value === undefined) return fallback;
      return value === "true" || value === "false"
        ? value === "true"
        : refuse(name, "must be true or false", value, fallback);
    },
    oneOf: (name, allowed, fallback) => {
      note(name, fallback, `one of: ${allowed.join(", ")}`);
      const value = raw(name);
      if (value === undefined) return fallback;
      const found = allowed.find((candidate) => candidate === value);
      return found ?? refuse(name, `must be one of: ${allowed.join(", ")}`, value, fallback);
    },
    text: (name, fallback, accepted = "text") => {
      note(name, fallback, accepted);
      return raw(name) ?? fallback;
    },
    problem: (name, message) => {
      errors.push({ field: name, message });
    },
    result: (value) => (errors.length > 0 ? { ok: false, errors: [...errors] } : { ok: true, value }),
  };
}
