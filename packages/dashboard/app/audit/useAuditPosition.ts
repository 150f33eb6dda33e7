import { useMemo } from "react";
import { useLocation, useNavigate, useSearchParams } from "react-router";
import { stateOfTrail, trailFromState, type PagePosition } from "./audit-paging.ts";
import { auditViewFromSearch, searchFromAuditView } from "./audit-view.ts";

/**
 * Where the audit log is: filters and page from the URL, the newer pages' cursors from the
 * history's state; `go` moves there with a new history entry.
 */
export function useAuditPosition() {
  const [searchParams] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  const view = useMemo(() => auditViewFromSearch(searchParams), [searchParams]);
  const at: PagePosition = { view, trail: trailFromState(location.state) };
  const go = ({ view: next, trail }: PagePosition) => {
    void navigate({ search: searchFromAuditView(next).toString() }, { state: stateOfTrail(trail) });
  };
  return { at, go };
}
