import { randomInt } from "node:crypto";
import { openStore, parseApiConfig, resetAdminPassword, UsersRepo } from "@svc/api";
import { describeErrors } from "@svc/core";

const USAGE = `usage: svc reset-admin-password [--password-stdin]

Gives the user "admin" a new password and the admin role (creating it if it was deleted), in the
database the API server uses (SVC_DATABASE_URL or SVC_DATABASE_PATH). Its sessions end.
The password is read from stdin with --password-stdin, else from SVC_ADMIN_PASSWORD, else a
random 16-character one is generated and printed.
`;

const ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";

/** 16 characters from the CSPRNG, as for the production default (SPEC.md "Limits"). */
function generatePassword(): string {
  return Array.from({ length: 16 }, () => ALPHABET[randomInt(ALPHABET.length)]).join("");
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

export async function runResetAdminPassword(args: string[]): Promise<void> {
  const fromStdin = args.includes("--password-stdin");
  if (args.some((a) => a !== "--password-stdin")) {
    process.stderr.write(USAGE);
    process.exitCode = 2;
    return;
  }
  const config = parseApiConfig(process.env);
  if (!config.ok) {
    process.stderr.write(
      `svc reset-admin-password: invalid configuration: ${describeErrors(config.errors)}\n`,
    );
    process.exitCode = 2;
    return;
  }
  const given = fromStdin ? await readStdin() : config.value.adminPassword;
  const password = given ?? generatePassword();
  const store = await openStore(config.value.database);
  try {
    const outcome = await resetAdminPassword(new UsersRepo(store), password, Date.now());
    process.stdout.write(`admin ${outcome === "created" ? "created" : "password reset"}\n`);
    if (given === undefined) process.stdout.write(`new password: ${password}\n`);
  } catch (error) {
    process.stderr.write(
      `svc reset-admin-password: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 1;
  } finally {
    await store.close();
  }
}
