// Whose a port is: the sockets a process listens on, read from its /proc TCP table, and a
// component's log saying another process holds its port.
import { describe, expect, it } from "vitest";
import { listeningInodes, portTaken, socketInode } from "../src/port-ownership.ts";

const TABLE = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:9C40 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 51234 1 0000000000000000 100 0 0 10 0
   1: 0100007F:9C41 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0        0 51235 1 0000000000000000 20 4 30 10 -1
   2: 00000000:9C41 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 51236 1 0000000000000000 100 0 0 10 0
`;

describe("listeningInodes", () => {
  it("finds the listening socket on a port (0x9C40 = 40000)", () => {
    expect(listeningInodes(TABLE, 40000)).toEqual(["51234"]);
  });

  it("ignores a connection whose local port is the one asked for, and finds the listener on any address", () => {
    expect(listeningInodes(TABLE, 40001)).toEqual(["51236"]);
  });

  it("finds nothing on a port nobody listens on", () => {
    expect(listeningInodes(TABLE, 40002)).toEqual([]);
  });
});

describe("socketInode", () => {
  it("reads a socket's inode from a file descriptor's link, and nothing from a file's", () => {
    expect(socketInode("socket:[51234]")).toBe("51234");
    expect(socketInode("/tmp/svc-controlplane-x/etcd.log")).toBeUndefined();
  });
});

describe("portTaken", () => {
  it("recognizes a Go server's bind failure (etcd, kube-controller-manager)", () => {
    expect(
      portTaken(
        "E1125 failed to create listener: failed to listen on 127.0.0.1:40000: listen tcp 127.0.0.1:40000: bind: address already in use",
      ),
    ).toBe(true);
    expect(portTaken("E1125 unable to load server certificate")).toBe(false);
  });
});
