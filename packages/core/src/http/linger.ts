/**
 * How long a connection closed after an answer keeps reading what the client still sends (its
 * lingering close, as nginx's `lingering_close`): closing with unread bytes makes the kernel send
 * a reset, and a client still sending its body loses the answer it was sent. Bounded in bytes and
 * time so that a client cannot hold the connection open or make the server read without end
 * (docs/security.md): 4 MiB covers the largest body a server of svc refuses unread (the API's
 * 1 MiB limit) with room; 2 s, a client on loopback or a LAN sends that in far less.
 */
export interface LingerLimits {
  maxBytes: number;
  maxMs: number;
}

export const LINGER_LIMITS: LingerLimits = { maxBytes: 4 * 1024 * 1024, maxMs: 2_000 };

/**
 * Whether a lingering connection reads on or closes now: it closes once the client has ended its
 * side (nothing more can arrive), or has sent more than the limit, or the time is up.
 */
export function lingerStep(
  lingering: { drainedBytes: number; elapsedMs: number; clientEnded: boolean },
  limits: LingerLimits = LINGER_LIMITS,
): "read" | "close" {
  if (lingering.clientEnded) return "close";
  if (lingering.drainedBytes > limits.maxBytes || lingering.elapsedMs >= limits.maxMs) return "close";
  return "read";
}
