// Loaded into the operator by bench/operator/memory.ts (`--import`): on SIGWINCH, writes what
// the process itself says of its memory to $SVC_BENCH_MEMORY_PROBE as JSON:
// process.memoryUsage() (rss, heapTotal, heapUsed, external, arrayBuffers) and V8's committed
// size per heap space. Bench only; never loaded by the product.
import { writeFileSync } from "node:fs";
import { getHeapSpaceStatistics, getHeapStatistics } from "node:v8";

const file = process.env["SVC_BENCH_MEMORY_PROBE"];
if (file !== undefined)
  process.on("SIGWINCH", () => {
    const spaces = Object.fromEntries(
      getHeapSpaceStatistics().map((s) => [
        s.space_name,
        { size: s.space_size, physical: s.physical_space_size, used: s.space_used_size },
      ]),
    );
    writeFileSync(file, JSON.stringify({ usage: process.memoryUsage(), heap: getHeapStatistics(), spaces }));
  });
