import { relativeTime } from "../ui/time.ts";
import { EmptyState, Loading, QueryState } from "../ui/states.tsx";
import { DeliveryState } from "./DeliveryState.tsx";
import { useDeliveryPages } from "./queries.ts";

/** A webhook's recent deliveries, newest first, with "Show more deliveries" for older pages. */
export function DeliveryLog({ webhookId }: { webhookId: string }) {
  const pages = useDeliveryPages(webhookId);
  const items = pages.data?.pages.flatMap((page) => page.items);
  return (
    <QueryState query={{ ...pages, data: items }} what="deliveries">
      {(list) =>
        list.length === 0 ? (
          <EmptyState title="No deliveries yet">
            <p>
              Each event the webhook subscribes to appears here, with its outcome. Test sends are not logged.
            </p>
          </EmptyState>
        ) : (
          <>
            <div className="table-wrap">
              <table aria-label="Deliveries">
                <thead>
                  <tr>
                    <th scope="col">Event</th>
                    <th scope="col">Event id (idempotency key)</th>
                    <th scope="col">State</th>
                    <th scope="col">Attempts</th>
                    <th scope="col">Last error</th>
                    <th scope="col">Time</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((d) => (
                    <tr key={d.id}>
                      <td>
                        <code>{d.eventType}</code>
                      </td>
                      <td className="mono">{d.eventId}</td>
                      <td>
                        <DeliveryState delivery={d} />
                      </td>
                      <td>{d.attempts}</td>
                      <td>{d.lastError === "" ? <span className="hint">none</span> : d.lastError}</td>
                      <td title={new Date(d.completedAt ?? d.createdAt).toLocaleString()}>
                        {relativeTime(d.completedAt ?? d.createdAt)}
                        {d.state === "pending" && (
                          <span className="hint"> (next attempt {relativeTime(d.nextAttemptAt)})</span>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {pages.isFetchingNextPage ? (
              <Loading what="more deliveries" />
            ) : (
              pages.hasNextPage && (
                <button
                  type="button"
                  onClick={() => {
                    void pages.fetchNextPage();
                  }}
                >
                  Show more deliveries
                </button>
              )
            )}
          </>
        )
      }
    </QueryState>
  );
}
