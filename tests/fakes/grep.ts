/** `grep -r` over a home, as an owner would check that a name is gone. */

/** `grep -r -l -a -i -F NAME` in `dir`: the files (relative, sorted) whose bytes hold the name. */
export async function grepHome(dir: string, name: string): Promise<string[]> {
  const out = await new Deno.Command("grep", {
    args: ["-r", "-l", "-a", "-i", "-F", name, "."],
    cwd: dir,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (out.code > 1) throw new Error(new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).split("\n").filter((l) => l !== "")
    .map((l) => l.replace(/^\.\//, "")).sort();
}
