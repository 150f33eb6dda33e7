// The one error type for an API server's answer other than 2xx (or a watch's ERROR event), used
// by @svc/kube and the sidecar alike. Node built-ins only: the sidecar imports it, and its image
// carries neither client-node nor undici.

/** An API server's refusal: the HTTP status (or the Status code) and the Status body's reason. */
export class KubeApiError extends Error {
  readonly status: number;
  readonly reason: string | undefined;
  /** The API server's own words, without the call a caller put before them in `message`. */
  readonly statusMessage: string;
  constructor(status: number, message: string, reason?: string, statusMessage: string = message) {
    super(message);
    this.name = "KubeApiError";
    this.status = status;
    this.reason = reason;
    this.statusMessage = statusMessage;
  }
}

/** What a Status body says; both fields undefined when the text is not one. */
export interface StatusBody {
  message: string | undefined;
  reason: string | undefined;
}

/** Reads the message and reason of a Status object; an empty message counts as none. */
export function parseStatusBody(text: string): StatusBody {
  try {
    const status = JSON.parse(text) as { message?: unknown; reason?: unknown } | null;
    return {
      message: typeof status?.message === "string" && status.message !== "" ? status.message : undefined,
      reason: typeof status?.reason === "string" ? status.reason : undefined,
    };
  } catch {
    return { message: undefined, reason: undefined };
  }
}
