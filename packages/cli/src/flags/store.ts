// The token file of `svc flags login`: written atomically (a reader never sees half a file)
// with mode 0600 in a 0700 folder, as ssh and kubectl keep credentials.
import { randomBytes } from "node:crypto";
import { mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { parseSavedLogin, type SavedLogin } from "./connection.ts";

/** The saved login, or undefined when there is none (or the file is not one). */
export async function readSavedLogin(path: string): Promise<SavedLogin | undefined> {
  try {
    return parseSavedLogin(await readFile(path, "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

export async function saveLogin(path: string, login: SavedLogin): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  // Created 0600 from the start (never chmod-ed after a write), next to the file so rename is atomic.
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const file = await open(temporary, "wx", 0o600);
  try {
    await file.writeFile(`${JSON.stringify(login)}\n`);
    await file.sync();
    await file.close();
    await rename(temporary, path);
  } catch (error) {
    await file.close().catch(() => undefined);
    await rm(temporary, { force: true });
    throw error;
  }
}
