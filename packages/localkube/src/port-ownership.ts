// Whose a port is, decided from what Linux shows: a port free a moment ago may be bound by another
// process before the component it was chosen for binds it. Then that component exits (its log
// says so), and a probe of the port reaches the other process, which may answer as if it were the
// component (another kube-apiserver answers /healthz to anyone).

/** The socket inodes listening on `port` in a /proc/<pid>/net/tcp or tcp6 table. */
export function listeningInodes(table: string, port: number): string[] {
  const inodes: string[] = [];
  for (const line of table.split("\n").slice(1)) {
    // sl local_address rem_address st ... inode: the address is ADDR:PORT in hex, st 0A is LISTEN.
    const fields = line.trim().split(/\s+/);
    const localPort = Number.parseInt(fields[1]?.split(":")[1] ?? "", 16);
    if (fields[3] === "0A" && localPort === port && fields[9] !== undefined) inodes.push(fields[9]);
  }
  return inodes;
}

/** The inode of a file descriptor's link ("socket:[123]"), if it is a socket. */
export function socketInode(fdLink: string): string | undefined {
  return /^socket:\[(\d+)\]$/.exec(fdLink)?.[1];
}

/** Whether a component's output says it could not bind a port because another process holds it. */
export function portTaken(log: string): boolean {
  return /bind: address already in use/.test(log);
}
