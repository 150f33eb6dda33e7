#!/usr/bin/env node
// The svc command: one binary, one subcommand per process (DESIGN.md §2). Each command lives in
// commands/<name>.ts and is loaded only when run, so `svc sidecar` never loads the API server.
import { commands } from "./commands.ts";
import { commandHelp } from "./help.ts";

function usage(): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length));
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `usage: svc <command> [--help]\n\ncommands:\n${lines.join("\n")}\n`;
}

const HELP = ["--help", "-h"];
const [name, ...args] = process.argv.slice(2);
const command = name === undefined ? undefined : commands[name];
if (command && name !== undefined) {
  const options = command.options ?? [];
  const unknown =
    options === "own" ? [] : args.filter((arg) => !HELP.includes(arg) && !options.includes(arg));
  // A command that reads its own arguments answers `svc <command> <verb> --help` itself.
  const ownHelp = options === "own" && args[0] !== undefined && !HELP.includes(args[0]);
  if (!ownHelp && args.some((arg) => HELP.includes(arg))) {
    const { uses, notes } = await command.settings();
    process.stdout.write(commandHelp(name, command.summary, uses, notes));
  } else if (unknown.length > 0) {
    process.stderr.write(
      `svc ${name}: unknown argument ${JSON.stringify(unknown[0])} (svc ${name} --help)\n`,
    );
    process.exitCode = 2;
  } else {
    await command.run(args);
  }
} else if (name === undefined || name === "help" || HELP.includes(name)) {
  process.stdout.write(usage());
} else {
  process.stderr.write(`svc: unknown command ${JSON.stringify(name)}\n\n${usage()}`);
  process.exitCode = 2;
}
