import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/** Ports are picked from here up to the kernel's ephemeral range (clear of Kubernetes' 10xxx ports). */
const PICK_FROM = 20_000;
const PICK_ATTEMPTS = 50;

/** The first port of the kernel's ephemeral range, which it hands to outgoing connections. */
function ephemeralRangeStart(): number {
  try {
    const first = Number(
      readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0],
    );
    return Number.isInteger(first) && first > 0 ? first : 32_768;
  } catch {
    return 32_768;
  }
}

/** Binds `port` (0: any) on 127.0.0.1 and closes it again: the port bound, or undefined when taken. */
async function bindAndRelease(port: number): Promise<number | undefined> {
  const server = createServer();
  const bound = await new Promise<boolean>((done) => {
    server.once("listening", () => {
      done(true);
    });
    server.once("error", () => {
      done(false);
    });
    server.listen(port, "127.0.0.1");
  });
  if (!bound) return undefined;
  const address = server.address();
  await new Promise((done) => server.close(done));
  return address === null || typeof address === "string" ? undefined : address.port;
}

/**
 * A TCP port on 127.0.0.1 that was free a moment ago. It is picked at random below the kernel's
 * ephemeral range: a port the kernel picks (listen on 0) is one it may hand the next moment to
 * an outgoing connection as its local port, which then holds it when the caller binds it (seen
 * as EADDRINUSE in a loaded test run). Another process binding the same port in between stays
 * possible, as with any port chosen before it is bound.
 */
export async function freeLoopbackPort(): Promise<number> {
  const end = ephemeralRangeStart();
  for (let attempt = 0; end - PICK_FROM > 1000 && attempt < PICK_ATTEMPTS; attempt++) {
    const port = await bindAndRelease(PICK_FROM + Math.floor(Math.random() * (end - PICK_FROM)));
    if (port !== undefined) return port;
  }
  const port = await bindAndRelease(0);
  if (port === undefined) throw new Error("could not find a free port");
  return port;
}
