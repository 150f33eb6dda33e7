// `svc dev` fills its demo through the REST API, as a user would: the flags it creates are
// validated, audited and shown exactly like flags created from the dashboard.
import type { ClusterRegistrationBody, ClusterView, FlagCreateBody, FlagView } from "@svc/core";
import { waitFor, WaitTimeoutError } from "@svc/kube";

interface Answer {
  status: number;
  body: unknown;
}

export class DevApiClient {
  private readonly url: string;
  private readonly token: string;

  private constructor(url: string, token: string) {
    this.url = url;
    this.token = token;
  }

  static async login(url: string, username: string, password: string): Promise<DevApiClient> {
    const answer = await send(url, "POST", "/api/v1/auth/login", undefined, { username, password });
    const token = (answer.body as { token?: unknown }).token;
    if (answer.status !== 200 || typeof token !== "string")
      throw new Error(`cannot log in to ${url} as ${username}: ${describe(answer)}`);
    return new DevApiClient(url, token);
  }

  /** Creates the flag; one that exists already (an earlier run on the same cluster) is kept. */
  async createFlag(flag: FlagCreateBody): Promise<void> {
    // A cluster just registered may not be known or synced in the API's registry yet, and a
    // kube-apiserver just started answers 429 "storage is (re)initializing" (a 502 here) until its
    // watch cache of the new CRD is filled: seen for 30 s on a loaded machine. Asked again.
    const answer = await waitFor(
      () => send(this.url, "POST", "/api/v1/flags", this.token, flag),
      (reply) => reply.status !== 404 && reply.status !== 502 && reply.status !== 503,
      { what: `the demo flag ${flag.name} created`, timeoutMs: 90_000, intervalMs: 250, describe },
    );
    if (answer.status !== 201 && answer.status !== 409)
      throw new Error(`cannot create the demo flag ${flag.name} in ${flag.clusterId}: ${describe(answer)}`);
  }

  async registerCluster(body: ClusterRegistrationBody): Promise<void> {
    const answer = await send(this.url, "POST", "/api/v1/clusters", this.token, body);
    if (answer.status !== 201 && answer.status !== 409)
      throw new Error(`cannot register cluster ${body.id}: ${describe(answer)}`);
  }

  async cluster(id: string): Promise<ClusterView | undefined> {
    const answer = await send(this.url, "GET", `/api/v1/clusters/${id}`, this.token);
    return answer.status === 200 ? (answer.body as ClusterView) : undefined;
  }

  async flags(clusterId: string, namespace: string): Promise<FlagView[]> {
    const query = new URLSearchParams({ clusterId, namespace });
    const answer = await send(this.url, "GET", `/api/v1/flags?${query.toString()}`, this.token);
    if (answer.status !== 200) throw new Error(`cannot list flags: ${describe(answer)}`);
    return answer.body as FlagView[];
  }

  /** Waits until the cluster is Connected; the error names its last status and message. */
  async waitConnected(id: string, timeoutMs: number): Promise<void> {
    await waitFor(
      () => this.cluster(id),
      (cluster) => cluster?.status === "Connected",
      { what: `cluster ${id} Connected`, timeoutMs, intervalMs: 250 },
    );
  }

  /** The flags once none is Pending any more, or after `timeoutMs` as they are then. */
  async settledFlags(clusterId: string, namespace: string, timeoutMs: number): Promise<FlagView[]> {
    try {
      return await waitFor(
        () => this.flags(clusterId, namespace),
        (flags) => flags.every((flag) => flag.status.phase !== "Pending"),
        { what: `the demo flags of ${clusterId} delivered`, timeoutMs, intervalMs: 250 },
      );
    } catch (error) {
      if (error instanceof WaitTimeoutError) return error.last as FlagView[];
      throw error;
    }
  }
}

async function send(
  url: string,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (token !== undefined) headers["authorization"] = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Kept as text for the message.
  }
  return { status: response.status, body: parsed };
}

function describe(answer: Answer): string {
  const error = (answer.body as { error?: unknown } | undefined)?.error;
  return `${answer.status} ${typeof error === "string" ? error : JSON.stringify(answer.body)}`;
}
