import assert from "node:assert/strict";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { runMain } from "../fakes/daemon.ts";

const CLI_MD = new URL("../../docs/cli.md", import.meta.url);

/** The first column of every row of the command table in docs/cli.md. */
function documentedCommands(markdown: string): string[] {
  const rows: string[] = [];
  let inTable = false;
  for (const line of markdown.split("\n")) {
    if (/^\| command\s+\| does\s+\|$/.test(line)) inTable = true;
    else if (inTable && !line.startsWith("|")) break;
    else if (inTable && line.startsWith("| `")) rows.push(line.split(" | ")[0]!.slice(2).trim());
  }
  return rows;
}

/** `command` or `command sub` for each line of `--help`'s command list. */
function helpCommands(help: string): string[] {
  const list = help.split("Commands:\n")[1]!.split("\n\n")[0]!;
  return list.split("\n").filter((line) => /^ {2}\S/.test(line)).map((line) => {
    const words = line.trim().split(/\s{2,}/)[0]!.split(" ");
    return /^[a-z]+$/.test(words[1] ?? "") ? `${words[0]} ${words[1]}` : words[0]!;
  });
}

// docs/cli.md once held the table twice (two merges), each copy missing commands the other had.
Deno.test("docs/cli.md has one command table naming every command of --help", async () => {
  const help = await runMain(["--help"]);
  assert.equal(help.code, 0, help.stderr);
  const rows = documentedCommands(await Deno.readTextFile(CLI_MD));
  assert.deepEqual(rows.filter((row, i) => rows.indexOf(row) !== i), [], "a row is repeated");
  const commands = helpCommands(help.stdout);
  assert.ok(commands.length >= 15, `read ${commands.length} commands from --help`);
  const missing = commands.filter((command) => !rows.some((row) => row.includes(`\`${command}`)));
  assert.deepEqual(missing, [], "commands of --help without a row in docs/cli.md");
  const tables = (await Deno.readTextFile(CLI_MD)).match(/^\| command\s+\| does\s+\|$/gm) ?? [];
  assert.equal(tables.length, 1, "one command table");
});

// --help said "Usage: homeagent …" where no homeagent is installed, while every other message
// named the form that works (docs/cli.md: "Every message that names a command uses the form …").
Deno.test("--help names the command as this process was run, like every other message", async () => {
  const outside = await Deno.makeTempDir({ prefix: "homeagent-help-" });
  try {
    const env = { PATH: `${dirname(Deno.execPath())}:/usr/bin:/bin` };
    const main = fileURLToPath(new URL("../../main.ts", import.meta.url));
    for (const args of [["--help"], []]) {
      const help = await runMain(args, { cwd: outside, env });
      assert.equal(help.code, args.length === 0 ? 2 : 0, help.stderr);
      assert.ok(help.stdout.startsWith(`Usage: deno run -A ${main} <command>`), help.stdout);
    }
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});
