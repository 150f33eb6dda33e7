import type { AuditEventView } from "@svc/core/browser";
import { Fragment, useState } from "react";
import { relativeTime } from "../ui/time.ts";
import { describeDetails, eventTarget, OUTCOME_BADGE } from "./audit-event.ts";

function EventDetails({ event }: { event: AuditEventView }) {
  const details = describeDetails(event.details);
  const source = event.sourceIp === "" ? null : <p className="hint">From {event.sourceIp}</p>;
  switch (details.kind) {
    case "changes":
      return (
        <>
          {details.fields.length > 0 && (
            <table className="audit-changes" aria-label={`Changes of event ${event.id}`}>
              <thead>
                <tr>
                  <th scope="col">Field</th>
                  <th scope="col">Before</th>
                  <th scope="col">After</th>
                </tr>
              </thead>
              <tbody>
                {details.fields.map((f) => (
                  <tr key={f.field}>
                    <th scope="row" className="mono">
                      {f.field}
                    </th>
                    <td className="mono">{f.before ?? <span className="hint">(none)</span>}</td>
                    <td className="mono">{f.after ?? <span className="hint">(none)</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {details.notes.map((note) => (
            <p key={note.field}>
              <code>{note.field}</code>: {note.value}
            </p>
          ))}
          {source}
        </>
      );
    case "refusal":
      return (
        <>
          <p>
            Refused with status <strong>{details.status}</strong>: {details.error}
          </p>
          {source}
        </>
      );
    case "other":
      return (
        <>
          <pre>{details.json}</pre>
          {source}
        </>
      );
    case "none":
      return (
        <>
          <p className="hint">No details recorded.</p>
          {source}
        </>
      );
  }
}

/** One page of events, newest first; each row opens to show what changed or why it was refused. */
export function AuditTable({ events }: { events: AuditEventView[] }) {
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const toggle = (id: number) => {
    setOpen((was) => {
      const next = new Set(was);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  };
  return (
    <div className="table-wrap">
      <table aria-label="Audit events" className="audit-table">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Actor</th>
            <th scope="col">Action</th>
            <th scope="col">Resource</th>
            <th scope="col">Cluster</th>
            <th scope="col">Outcome</th>
            <th scope="col">
              <span className="visually-hidden">Details</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {events.map((event) => {
            const isOpen = open.has(event.id);
            const detailsId = `audit-event-${event.id}`;
            return (
              <Fragment key={event.id}>
                <tr className={isOpen ? "audit-row open" : "audit-row"}>
                  <td>
                    <time dateTime={event.timestamp} title={relativeTime(event.timestamp)}>
                      {new Date(event.timestamp).toLocaleString()}
                    </time>
                  </td>
                  <td>
                    {event.actor === "" ? <span className="hint">unknown</span> : event.actor}
                    {event.actorRole !== "" && <span className="role"> {event.actorRole}</span>}
                  </td>
                  <td>{event.action}</td>
                  <td className="audit-target">{eventTarget(event)}</td>
                  <td>{event.cluster}</td>
                  <td>
                    <span className={`badge ${OUTCOME_BADGE[event.outcome]}`}>{event.outcome}</span>
                  </td>
                  <td>
                    <button
                      type="button"
                      aria-expanded={isOpen}
                      aria-controls={isOpen ? detailsId : undefined}
                      aria-label={`Details of event ${event.id}`}
                      onClick={() => {
                        toggle(event.id);
                      }}
                    >
                      {isOpen ? "Hide" : "Details"}
                    </button>
                  </td>
                </tr>
                {isOpen && (
                  <tr id={detailsId} className="audit-details">
                    <td colSpan={7}>
                      <EventDetails event={event} />
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
