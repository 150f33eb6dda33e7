/**
 * "Older" / "Newer" paging over GET /api/v1/audit's `before=<id>` cursor. The API pages only
 * towards older events, so the cursors of the newer pages are kept (the trail) to go back.
 */
import type { AuditView } from "./audit-view.ts";

/** Cursors of the pages newer than the one shown, the nearest last; undefined is the newest page. */
export type NewerTrail = readonly (number | undefined)[];

export interface AuditPage<T> {
  events: T[];
  /** The `before` cursor of the next older page; undefined when there is none. */
  olderCursor: number | undefined;
}

/** The events of a page as fetched with `auditPageQuery` (one more than shown, see there). */
export function pageOf<T extends { id: number }>(fetched: readonly T[], pageSize: number): AuditPage<T> {
  const events = fetched.slice(0, pageSize);
  const last = events.at(-1);
  return { events, olderCursor: fetched.length > pageSize && last !== undefined ? last.id : undefined };
}

export interface PagePosition {
  view: AuditView;
  trail: NewerTrail;
}

export function olderPosition(at: PagePosition, olderCursor: number): PagePosition {
  return { view: { ...at.view, before: olderCursor }, trail: [...at.trail, at.view.before] };
}

/**
 * One page newer. Without a trail (a shared link or a reload on an older page) there is no way
 * to know the newer page's cursor, so it goes to the newest page.
 */
export function newerPosition(at: PagePosition): PagePosition {
  const before = at.trail.at(-1);
  const view: AuditView = { filter: at.view.filter, pageSize: at.view.pageSize };
  if (before !== undefined) view.before = before;
  return { view, trail: at.trail.slice(0, -1) };
}

/** The trail as kept in the browser history's state: anything else found there is ignored. */
export function trailFromState(state: unknown): NewerTrail {
  if (typeof state !== "object" || state === null || !("auditTrail" in state)) return [];
  const trail = state.auditTrail;
  if (!Array.isArray(trail)) return [];
  return trail.every((c) => c === null || (Number.isInteger(c) && c > 0))
    ? trail.map((c: number | null) => c ?? undefined)
    : [];
}

/** The history state that carries a trail (JSON-safe: undefined becomes null). */
export function stateOfTrail(trail: NewerTrail): { auditTrail: (number | null)[] } {
  return { auditTrail: trail.map((c) => c ?? null) };
}
