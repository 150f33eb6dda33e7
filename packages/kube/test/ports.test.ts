// freeLoopbackPort picks below the kernel's ephemeral range, so an outgoing connection cannot
// take the port between its pick and its bind.
import { readFileSync } from "node:fs";
import { once } from "node:events";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { freeLoopbackPort } from "../src/ports.ts";

const ephemeralStart = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").split(/\s+/)[0]);

describe("freeLoopbackPort", () => {
  it("answers ports outside the ephemeral range that can be bound", async () => {
    for (let i = 0; i < 20; i++) {
      const port = await freeLoopbackPort();
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(ephemeralStart);
      const server = createServer().listen(port, "127.0.0.1");
      await once(server, "listening");
      await new Promise((done) => server.close(done));
    }
  });
});
