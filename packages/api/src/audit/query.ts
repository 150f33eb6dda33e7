import type { AuditVisibility } from "@svc/core";
import {
  AUDIT_ACTIONS,
  AUDIT_RESOURCES,
  fieldPath,
  PAGE_LIMIT_MAX,
  parsePageLimit,
  type FieldError,
  type SortKeyShape,
  type Validated,
} from "@svc/core";
import Type from "typebox";
import { isoTime, parseIsoTime } from "../time.ts";

export const AUDIT_LIMIT_DEFAULT = 100;

/** A page's position in the log: an event's (timestamp, id), newest first. */
export type AuditKey = readonly [string, number];
export const AUDIT_KEY: SortKeyShape = ["string", "number"];

/** The query string as it arrives: every parameter a string, unknown ones refused. */
export const AuditQueryString = Type.Object(
  {
    resource: Type.Optional(Type.Enum([...AUDIT_RESOURCES], { description: "Resource type." })),
    action: Type.Optional(Type.Enum([...AUDIT_ACTIONS])),
    cluster: Type.Optional(Type.String({ maxLength: 253 })),
    namespace: Type.Optional(Type.String({ maxLength: 253, description: "Namespace of the resource." })),
    resourceName: Type.Optional(
      Type.String({ maxLength: 253, description: "Name of the resource, e.g. one flag's history." }),
    ),
    actor: Type.Optional(Type.String({ maxLength: 253 })),
    since: Type.Optional(
      Type.String({ maxLength: 64, description: "ISO 8601 time; events at or after it." }),
    ),
    until: Type.Optional(Type.String({ maxLength: 64, description: "ISO 8601 time; events before it." })),
    limit: Type.Optional(
      Type.String({ maxLength: 8, description: `1-${PAGE_LIMIT_MAX}, default ${AUDIT_LIMIT_DEFAULT}.` }),
    ),
    before: Type.Optional(
      Type.String({ maxLength: 20, description: "Event id: the page of events older than it." }),
    ),
    continue: Type.Optional(
      Type.String({
        maxLength: 4096,
        description: "Answer a page, {items, metadata}: empty for the first, then metadata.continue.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type AuditQueryString = Type.Static<typeof AuditQueryString>;

export interface AuditQuery {
  resource?: string;
  action?: string;
  cluster?: string;
  namespace?: string;
  resourceName?: string;
  actor?: string;
  /** ISO 8601 UTC, normalised like stored timestamps so that text comparison is time comparison. */
  since?: string;
  until?: string;
  limit: number;
  beforeId?: number;
  /** What the caller may read (scoped roles); undefined or `all`: everything. */
  visibility?: AuditVisibility;
}

function time(name: string, raw: string | undefined, errors: FieldError[]): string | undefined {
  if (raw === undefined) return undefined;
  const ms = parseIsoTime(raw);
  if (ms === undefined) {
    errors.push({
      field: fieldPath("query", name),
      message: "must be an ISO 8601 time, e.g. 2026-01-31T12:00:00Z",
    });
    return undefined;
  }
  return isoTime(ms);
}

/** An event id: a positive integer. */
function eventId(name: string, raw: string | undefined, errors: FieldError[]): number | undefined {
  if (raw === undefined) return undefined;
  const value = /^[0-9]{1,16}$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= 1 && value <= Number.MAX_SAFE_INTEGER)) {
    const message = `must be an integer between 1 and ${Number.MAX_SAFE_INTEGER}`;
    errors.push({ field: fieldPath("query", name), message });
    return undefined;
  }
  return value;
}

/** Turns the (schema-checked) query string into a query the store runs. */
export function parseAuditQuery(query: AuditQueryString): Validated<AuditQuery> {
  const errors: FieldError[] = [];
  const since = time("since", query.since, errors);
  const until = time("until", query.until, errors);
  const limit = parsePageLimit(query.limit, errors) ?? AUDIT_LIMIT_DEFAULT;
  const beforeId = eventId("before", query.before, errors);
  if (query.continue !== undefined && query.before !== undefined) {
    errors.push({ field: fieldPath("query", "continue"), message: "pages by itself: leave out before" });
  }
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: {
      ...(query.resource === undefined ? {} : { resource: query.resource }),
      ...(query.action === undefined ? {} : { action: query.action }),
      ...(query.cluster === undefined ? {} : { cluster: query.cluster }),
      ...(query.namespace === undefined ? {} : { namespace: query.namespace }),
      ...(query.resourceName === undefined ? {} : { resourceName: query.resourceName }),
      ...(query.actor === undefined ? {} : { actor: query.actor }),
      ...(since === undefined ? {} : { since }),
      ...(until === undefined ? {} : { until }),
      limit,
      ...(beforeId === undefined ? {} : { beforeId }),
    },
  };
}

/** Oldest timestamp that retention keeps. */
export function retentionCutoff(now: number, retentionDays: number): string {
  return isoTime(now - retentionDays * 24 * 60 * 60 * 1000);
}
