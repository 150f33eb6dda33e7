// Asking a person at a terminal for their user name and password (login without
// --password-stdin). The password is read in raw mode and never echoed.
import { createInterface } from "node:readline/promises";

export async function askLine(question: string): Promise<string> {
  const lines = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await lines.question(question);
  } finally {
    lines.close();
  }
}

export function askSecret(question: string): Promise<string> {
  const input = process.stdin;
  process.stderr.write(question);
  return new Promise((resolve, reject) => {
    let secret = "";
    const done = (error?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.off("data", onData);
      process.stderr.write("\n");
      if (error === undefined) resolve(secret);
      else reject(error);
    };
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString("utf8")) {
        if (char === "\r" || char === "\n") {
          done();
          return;
        }
        if (char === "\u0003") {
          done(new Error("interrupted"));
          return;
        }
        if (char === "\u007f" || char === "\b") secret = secret.slice(0, -1);
        else secret += char;
      }
    };
    input.setRawMode(true);
    input.resume();
    input.on("data", onData);
  });
}

/** All of stdin, without its final line break (`echo pw | svc flags login --password-stdin`). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}
