// The operator's life as explicit states, decided by one pure function: a replica stands by
// until it leads (at once without leader election), starts (hub CRDs, cluster registry: up to
// 30 s), leads, and closes on shutdown or lost leadership. Start-up checks the state after each
// await, so a close or a lost Lease during start-up ends it instead of letting it go on.

export type OperatorState = "standby" | "starting" | "leading" | "closing" | "closed";

export type OperatorEvent =
  /** The Lease was won (or leader election is off). */
  | "elected"
  /** Start-up finished: every cluster connected and its keys queued. */
  | "started"
  /** close() was called. */
  | "close"
  /** The Lease was lost. */
  | "leadershipLost"
  /** Everything close() stops is stopped. */
  | "closed";

/** The state after `event`; an event that does not apply in `state` leaves it as it is. */
export function nextOperatorState(state: OperatorState, event: OperatorEvent): OperatorState {
  switch (event) {
    case "elected":
      return state === "standby" ? "starting" : state;
    case "started":
      return state === "starting" ? "leading" : state;
    case "close":
    case "leadershipLost":
      return state === "closed" ? state : "closing";
    case "closed":
      return state === "closing" ? "closed" : state;
  }
}

/** Whether this replica holds the Lease and may write (reported as the leader metric and on /readyz). */
export function holdsLead(state: OperatorState): boolean {
  return state === "starting" || state === "leading";
}
