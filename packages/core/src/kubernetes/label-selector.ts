// The one label-selector rule, in a module that imports nothing: the sidecar applies it too.

/**
 * True when every label of the selector is on `labels` with the same value. An empty selector
 * matches nothing: the schema refuses one, and a selector that matched everything would
 * restart a whole namespace.
 */
export function selectorMatches(
  matchLabels: Readonly<Record<string, string>>,
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  if (labels === undefined) return false;
  // A plain loop: this runs for every flag against every workload of a namespace. An inherited
  // property of `labels` ("constructor") is never a string, so it never equals a label value.
  let empty = true;
  for (const key in matchLabels) {
    empty = false;
    if (labels[key] !== matchLabels[key]) return false;
  }
  return !empty;
}
