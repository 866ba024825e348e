import assert from "node:assert/strict";
import { runMain } from "../fakes/daemon.ts";
import { inAgentfs, startToolDaemon } from "./_daemon_chat.ts";

Deno.test("changes: one changeset per turn, shown as a diff, rolled back only when unchanged since", async () => {
  await using d = await startToolDaemon();
  const x = inAgentfs(d.home, "x.txt");
  await Deno.writeTextFile(inAgentfs(d.home, "keep.txt"), "old\n");
  await d.calls([
    { name: "files_write", arguments: { path: "x.txt", content: "v1\n", mode: "create" } },
    { name: "files_edit", arguments: { path: "x.txt", edits: [{ old: "v1", new: "v2" }] } },
    { name: "files_write", arguments: { path: "keep.txt", content: "new\n" } },
  ]);
  const list = await runMain(["changes", "--home", d.home, "list"]);
  assert.equal(list.code, 0, list.stderr);
  const lines = list.stdout.trim().split("\n");
  assert.equal(lines.length, 1, "one turn, one changeset");
  const id = lines[0]!.split(" ")[0]!;
  assert.match(lines[0]!, /\[files_write,files_edit\] created .*x\.txt, modified .*keep\.txt/);

  const show = await runMain(["changes", "--home", d.home, "show", id]);
  assert.match(show.stdout, /-old\n\+new/);
  assert.match(show.stdout, /\+v2/);

  // Changed since: the rollback refuses and says which file and why; nothing is touched.
  await Deno.writeTextFile(x, "edited by hand\n");
  const refused = await runMain(["changes", "--home", d.home, "rollback", id]);
  assert.equal(refused.code, 1);
  assert.match(
    refused.stderr,
    /Cannot roll back .*nothing was changed:\n- .*x\.txt: changed since/,
  );
  assert.equal(await Deno.readTextFile(inAgentfs(d.home, "keep.txt")), "new\n");

  await Deno.writeTextFile(x, "v2\n");
  const done = await runMain(["changes", "--home", d.home, "rollback", id]);
  assert.equal(done.code, 0, done.stderr);
  await assert.rejects(Deno.stat(x), Deno.errors.NotFound);
  assert.equal(await Deno.readTextFile(inAgentfs(d.home, "keep.txt")), "old\n");
  const again = await runMain(["changes", "--home", d.home, "rollback", id]);
  assert.match(again.stderr, /already rolled back/);

  // The web route and the tools see the same record; the rollback itself can be undone.
  const sets = await d.api("/api/v1/plugins/changes/sets");
  assert.equal(sets.status, 200);
  const undo = sets.body.changesets.find((s: { rollbackOf?: string }) => s.rollbackOf === id);
  assert.ok(undo);
  assert.match(await d.call("changes_list", {}), new RegExp(`rollback of ${id}`));
  assert.match(await d.call("changes_rollback", { id: undo.id }), /^Rolled back/);
  assert.equal(await Deno.readTextFile(x), "v2\n");
  const one = await d.api(`/api/v1/plugins/changes/sets/${undo.id}`);
  assert.equal(one.body.changeset.rolledBack.by.length, 20);
  assert.match(one.body.diff, new RegExp(`^changeset ${undo.id} `));
  assert.match(one.body.diff, /-new\n\+old/, "the rollback put keep.txt back");
  const shown = await d.call("changes_show", { id });
  assert.match(shown, new RegExp(`^changeset ${id} .*\ntools: files_write, files_edit\n`));
  assert.match(shown, /-old\n\+new/);
  assert.match(await d.call("changes_show", { id: "nosuch" }), /^Error: /);
  const bad = await d.api("/api/v1/plugins/changes/sets/../../config/rollback", { body: {} });
  assert.equal(bad.status, 404);
  const unknown = await d.api("/api/v1/plugins/changes/sets/20200101-000000-abcd/rollback", {
    body: {},
  });
  assert.equal(unknown.status, 404);
  assert.match(unknown.body.error.message, /No changeset/);
});

Deno.test("changes: a corrupt changeset file is moved aside with a log line", async () => {
  await using d = await startToolDaemon();
  await d.call("files_write", { path: "a.txt", content: "a" });
  const dir = `${d.home}/changesets`;
  const [file] = [...Deno.readDirSync(dir)].map((e) => e.name);
  await Deno.writeTextFile(`${dir}/${file}`, "{not json");
  const list = await runMain(["changes", "--home", d.home, "list"]);
  assert.equal(list.stdout, "No changes recorded\n");
  assert.match(list.stderr, /Corrupt changeset moved aside/);
  assert.ok([...Deno.readDirSync(dir)].some((e) => e.name.endsWith(".corrupt")));
});
