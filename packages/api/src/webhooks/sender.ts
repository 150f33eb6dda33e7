// The thin shell that puts one attempt on the wire: checked address, bounded time, no redirects.
import { request as httpRequest, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { resolveAllowed, type Network } from "./address.ts";

export interface SendOutcome {
  ok: boolean;
  /** The receiver's HTTP status; null when none came (refused, unreachable, timed out). */
  status: number | null;
  /** Why it failed ("" on success); never the URL, whose path may be a secret (Slack's is). */
  error: string;
}

/** What is read of a receiver's answer: its status counts, its body does not. */
const ANSWER_READ_MAX = 64 * 1024;

/**
 * POSTs `body` to `url` and answers within `timeoutMs` whatever the receiver does (a receiver
 * that accepts and never answers, or trickles its answer, is cut off). Connects only to the
 * address resolveAllowed checked; a 2xx is success, anything else (redirects included: they
 * could lead anywhere) a failure.
 */
export async function sendAttempt(
  url: string,
  body: string,
  headers: Readonly<Record<string, string>>,
  options: { timeoutMs: number; allowed: readonly Network[] },
): Promise<SendOutcome> {
  const target = new URL(url);
  const resolved = await resolveAllowed(target.hostname, options.allowed);
  if (!resolved.ok) return { ok: false, status: null, error: resolved.error };
  const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all === true) callback(null, [{ address: resolved.address, family: resolved.family }]);
    else callback(null, resolved.address, resolved.family);
  };
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  const requestOptions: RequestOptions = {
    method: "POST",
    headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
    lookup: pinned,
    // A connection per attempt: a kept-alive socket would outlive the address check.
    agent: false,
  };
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: SendOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const req = send(target, requestOptions, (res) => {
      let read = 0;
      res.on("data", (chunk: Buffer) => {
        read += chunk.length;
        if (read > ANSWER_READ_MAX) res.destroy();
      });
      const status = res.statusCode ?? 0;
      const answered = () => {
        const ok = status >= 200 && status < 300;
        finish({ ok, status, error: ok ? "" : `the receiver answered ${status}` });
      };
      res.on("end", answered);
      res.on("close", answered);
      res.on("error", answered);
    });
    const timer = setTimeout(() => {
      req.destroy();
      finish({ ok: false, status: null, error: `no answer within ${options.timeoutMs} ms` });
    }, options.timeoutMs);
    req.on("error", (error: NodeJS.ErrnoException) => {
      finish({ ok: false, status: null, error: `cannot reach the receiver: ${error.code ?? error.message}` });
    });
    req.end(body);
  });
}
