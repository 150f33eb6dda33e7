// The completion scripts, run by bash itself: what a user gets after pressing tab.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { commands } from "../src/commands.ts";
import { bashCompletion, zshCompletion } from "../src/flags/completion.ts";

const script = bashCompletion(Object.keys(commands));

/** COMPREPLY for the words typed so far (the last one is the word being completed). */
function complete(words: string[]): string[] {
  const line = words.map((w) => `'${w}'`).join(" ");
  const run = spawnSync(
    "bash",
    [
      "-c",
      `${script}\nCOMP_WORDS=(${line}); COMP_CWORD=${words.length - 1}; _svc_complete; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ],
    { encoding: "utf8", cwd: import.meta.dirname },
  );
  expect(run.stderr).toBe("");
  return run.stdout.split("\n").filter((w) => w !== "");
}

describe("bash completion", () => {
  it("completes svc's commands, the verbs of flags, each verb's options and their values", () => {
    expect(complete(["svc", ""])).toEqual(Object.keys(commands));
    expect(complete(["svc", "flags", "d"])).toEqual(["delete", "diff"]);
    expect(complete(["svc", "flags", "toggle", "shop/a", "--o"])).toEqual([
      "--on",
      "--off",
      "--override-reason",
      "--output",
    ]);
    expect(complete(["svc", "flags", "get", "-o", ""])).toEqual(["table", "json", "yaml"]);
    expect(complete(["svc", "flags", "create", "a/b", "--delivery", "e"])).toEqual(["envVar"]);
    expect(complete(["svc", "flags", "import", "f.json", "--sel"])).toEqual(["--selector"]);
    expect(complete(["svc", "flags", "apply", "-f", "flags-completion.test"])).toEqual([
      "flags-completion.test.ts",
    ]);
    expect(complete(["svc", "flags", "get", "--server", ""])).toEqual([]);
    expect(complete(["svc", "flags", "completion", ""])).toEqual(["bash", "zsh"]);
  });

  it("completes svc users' verbs, each verb's options and their values", () => {
    expect(complete(["svc", "users", "g"])).toEqual(["get", "grant"]);
    expect(complete(["svc", "users", "grant", "sam", "--cl"])).toEqual(["--cluster", "--cluster-label"]);
    expect(complete(["svc", "users", "set", "sam", "--role", ""])).toEqual([
      "admin",
      "editor",
      "viewer",
      "none",
    ]);
    expect(complete(["svc", "users", "revoke", "sam", "--a"])).toEqual(["--all"]);
    expect(complete(["svc", "users", "list", "-o", "j"])).toEqual(["json"]);
  });

  it("completes the plan verbs after rollout, then their options and values", () => {
    expect(complete(["svc", "flags", "r"])).toEqual(["rollout"]);
    expect(complete(["svc", "flags", "p"])).toEqual(["promote"]);
    expect(complete(["svc", "flags", "rollout", "re"])).toEqual(["resume", "reject"]);
    expect(complete(["svc", "flags", "rollout", "create", "shop/a", "--w"])).toEqual(["--wave"]);
    expect(complete(["svc", "flags", "rollout", "create", "shop/a", "--enabled", ""])).toEqual([
      "true",
      "false",
    ]);
    expect(complete(["svc", "flags", "rollout", "list", "--phase", "R"])).toEqual([
      "RollingBack",
      "RolledBack",
      "Rejected",
    ]);
    expect(complete(["svc", "flags", "rollout", "approve", "p", "--c"])).toEqual(["--comment"]);
    expect(complete(["svc", "flags", "rollout", "create", "-f", "flags-completion.test"])).toEqual([
      "flags-completion.test.ts",
    ]);
    expect(complete(["svc", "flags", "promote", "shop/a", "--f"])).toEqual(["--from"]);
  });

  it("zsh loads the same function through bashcompinit", () => {
    expect(zshCompletion(["flags"])).toContain("bashcompinit");
    expect(zshCompletion(["flags"])).toContain("complete -F _svc_complete svc");
  });
});
