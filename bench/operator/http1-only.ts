// Loaded into the operator by bench/operator/memory.ts (`--variant "NAME --import=…/http1-only.ts"`):
// makes every undici Agent speak HTTP/1.1 only (`allowH2: false`). undici 8 negotiates HTTP/2 by
// default, so client-node's Agent (the dispatcher of every request the operator sends) multiplexes
// all watches and writes to a kube-apiserver over one HTTP/2 session. Bench only: it patches
// undici's exports before any module imports them, which a product must not do.
import { createRequire } from "node:module";

const undici = createRequire(import.meta.url)("undici") as { Agent: new (options?: object) => object };
const Base = undici.Agent;
undici.Agent = class extends Base {
  constructor(options: object = {}) {
    super({ ...options, allowH2: false });
  }
};
