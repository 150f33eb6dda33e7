/**
 * What the audit page shows, as plain data: the filter and page kept in the URL's search
 * parameters, and the query sent to GET /api/v1/audit for it. No React here.
 */
import { AUDIT_ACTIONS, AUDIT_RESOURCES, type AuditAction, type AuditResource } from "@svc/core/browser";
import type { QueryValue } from "../api/client.ts";

export const AUDIT_PAGE_SIZES = [25, 50, 100, 250, 500] as const;
export const DEFAULT_AUDIT_PAGE_SIZE = 50;
/** The API's largest page: an export holds at most this many events (the newest that match). */
export const AUDIT_EXPORT_LIMIT = 1000;

export interface AuditFilter {
  resource?: AuditResource;
  action?: AuditAction;
  cluster?: string;
  actor?: string;
  /** ISO 8601: events at or after it. */
  since?: string;
  /** ISO 8601: events before it. */
  until?: string;
}

export interface AuditView {
  filter: AuditFilter;
  pageSize: number;
  /** The page of events older than this id; undefined for the newest page. */
  before?: number;
}

const TEXT_FILTERS = ["cluster", "actor"] as const;
const TIME_FILTERS = ["since", "until"] as const;

function oneOf<T extends string>(values: readonly T[], raw: string | null): T | undefined {
  return values.find((value) => value === raw);
}

function positiveInteger(raw: string | null): number | undefined {
  if (raw === null || !/^[1-9][0-9]{0,15}$/.test(raw)) return undefined;
  return Number(raw);
}

/**
 * The view a URL asks for. Parameters that are not valid (a hand-edited or outdated link) are
 * left out rather than sent to the API to be refused: the page still shows the log.
 */
export function auditViewFromSearch(params: URLSearchParams): AuditView {
  const filter: AuditFilter = {};
  const resource = oneOf(AUDIT_RESOURCES, params.get("resource"));
  if (resource !== undefined) filter.resource = resource;
  const action = oneOf(AUDIT_ACTIONS, params.get("action"));
  if (action !== undefined) filter.action = action;
  for (const key of TEXT_FILTERS) {
    const value = params.get(key)?.trim();
    if (value !== undefined && value !== "") filter[key] = value;
  }
  for (const key of TIME_FILTERS) {
    const value = params.get(key);
    if (value !== null && !Number.isNaN(Date.parse(value))) filter[key] = value;
  }
  const size = positiveInteger(params.get("pageSize"));
  const view: AuditView = {
    filter,
    pageSize: AUDIT_PAGE_SIZES.find((s) => s === size) ?? DEFAULT_AUDIT_PAGE_SIZE,
  };
  const before = positiveInteger(params.get("before"));
  if (before !== undefined) view.before = before;
  return view;
}

/** The URL search parameters of a view; defaults are left out so links stay short. */
export function searchFromAuditView(view: AuditView): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(view.filter)) {
    if (typeof value === "string" && value !== "") params.set(key, value);
  }
  if (view.pageSize !== DEFAULT_AUDIT_PAGE_SIZE) params.set("pageSize", String(view.pageSize));
  if (view.before !== undefined) params.set("before", String(view.before));
  return params;
}

/**
 * The API query of one page. It asks for one event more than it shows: that event's presence
 * says whether an older page exists, so "Older" is never offered onto an empty page.
 */
export function auditPageQuery(view: AuditView): Record<string, QueryValue> {
  return { ...view.filter, limit: view.pageSize + 1, before: view.before };
}

/** The API query of a CSV export: the filter, not the page, newest first. */
export function auditExportQuery(filter: AuditFilter): Record<string, QueryValue> {
  return { ...filter, limit: AUDIT_EXPORT_LIMIT };
}

/** A new filter starts again at the newest page and keeps the page size. */
export function withFilter(view: AuditView, filter: AuditFilter): AuditView {
  return { filter, pageSize: view.pageSize };
}

export function hasFilter(filter: AuditFilter): boolean {
  return Object.values(filter).some((value) => value !== undefined && value !== "");
}

/** The file name of an export, dated by the user's own calendar: svc-audit-2026-11-22.csv. */
export function exportFileName(now: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `svc-audit-${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}.csv`;
}

/**
 * A `datetime-local` input's value ("2026-11-22T14:30", the user's local time) as an ISO 8601
 * UTC time; undefined when empty or not a time.
 */
export function localInputToIso(value: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(value)) return undefined;
  const ms = new Date(value).getTime(); // no offset: the spec reads it as local time
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** An ISO 8601 time as a `datetime-local` input's value, in the user's local time. */
export function isoToLocalInput(iso: string | undefined): string {
  if (iso === undefined) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  const pad = (n: number) => String(n).padStart(2, "0");
  const day = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  const seconds = date.getSeconds() === 0 ? "" : `:${pad(date.getSeconds())}`;
  return `${day}T${pad(date.getHours())}:${pad(date.getMinutes())}${seconds}`;
}

/** Why a time range finds nothing by construction: `until` (exclusive) not after `since`. */
export function timeRangeProblem(filter: Pick<AuditFilter, "since" | "until">): string | undefined {
  if (filter.since === undefined || filter.until === undefined) return undefined;
  return Date.parse(filter.until) <= Date.parse(filter.since) ? "must be later than Since" : undefined;
}
