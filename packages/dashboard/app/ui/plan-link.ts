import { protectedRefusal } from "@svc/core/browser";
import { ApiError } from "../api/client.ts";

/**
 * Where to make a change that a protected cluster refused as a direct write: a new rollout plan of
 * the flag (docs/safe-changes.md "Protected clusters hold for every write"), or undefined.
 */
export function planLinkOf(error: unknown): string | undefined {
  if (!(error instanceof ApiError) || error.status !== 403) return undefined;
  const refused = protectedRefusal(error.message);
  if (refused === undefined) return undefined;
  const query = new URLSearchParams({ namespace: refused.namespace, name: refused.name });
  return `/rollouts/new?${query.toString()}`;
}
