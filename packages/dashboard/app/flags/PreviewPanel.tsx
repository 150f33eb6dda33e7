import type { FlagCreateBody, PreviewEntry } from "@svc/core/browser";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { Loading } from "../ui/states.tsx";
import { useDebouncedCall } from "../ui/useDebouncedCall.ts";
import { restartWarning } from "./form-model.ts";
import { previewFlag, type FlagAddress } from "./queries.ts";

const preview = (request: string, signal: AbortSignal) => {
  const { body, address } = JSON.parse(request) as { body: FlagCreateBody; address?: FlagAddress };
  return previewFlag(body, address, signal).then((answer) => answer.preview);
};

/**
 * The blast radius of saving, before saving: the API's dry run of exactly the body the form
 * would send, refreshed as the user edits (debounced; a stale answer is dropped).
 */
export function PreviewPanel({
  body,
  address,
  ready,
}: {
  body: FlagCreateBody;
  /** Set when editing: the preview compares with the flag as stored. */
  address: FlagAddress | undefined;
  /** False while the form has problems of its own: nothing to preview yet. */
  ready: boolean;
}) {
  // Compared by value: the parent builds new objects on every render.
  const state = useDebouncedCall(ready ? JSON.stringify({ body, address }) : undefined, preview);

  return (
    <section className="card preview" aria-labelledby="preview-title" aria-live="polite">
      <h2 id="preview-title">Preview: workloads this flag reaches</h2>
      {!ready ? (
        <p className="hint">Fix the problems above to see which workloads this flag would reach.</p>
      ) : state.status === "idle" || state.status === "loading" ? (
        <Loading what="the preview" />
      ) : state.status === "failed" ? (
        <ErrorMessage error={state.error} />
      ) : state.value.length === 0 ? (
        <p>No workload of this namespace matches the selector: nothing is delivered and nothing restarts.</p>
      ) : (
        <PreviewTable entries={state.value} />
      )}
    </section>
  );
}

function PreviewTable({ entries }: { entries: PreviewEntry[] }) {
  const warning = restartWarning(entries);
  return (
    <>
      {warning === undefined ? (
        <p className="success">No workload restarts when you save.</p>
      ) : (
        <p className="notice" role="alert">
          {warning}
        </p>
      )}
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Workload</th>
              <th scope="col">Matched by</th>
              <th scope="col">On save</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={`${entry.kind}/${entry.namespace}/${entry.name}`}>
                <td>
                  {entry.kind}{" "}
                  <strong>
                    {entry.namespace}/{entry.name}
                  </strong>
                </td>
                <td>
                  {entry.matchedBy === "none"
                    ? "no longer matches (the flag is withdrawn)"
                    : entry.matchedBy === "labels"
                      ? "workload labels"
                      : "pod template labels"}
                </td>
                <td>{entry.restarts ? `restarts: ${entry.reasons.join("; ")}` : "no restart"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
