import { runFlagVerb } from "../flags/run.ts";

/** `svc flags <verb>`, every verb (../flags/run.ts). `commands`: svc's command names, for the completion scripts. */
export async function runFlags(args: string[], commands: readonly string[] = []): Promise<void> {
  process.exitCode = await runFlagVerb(args, commands);
}
