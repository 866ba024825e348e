import assert from "node:assert/strict";
import { join } from "node:path";
import { runMain } from "../fakes/daemon.ts";
import { inAgentfs, startToolDaemon } from "./_daemon_chat.ts";

Deno.test("files: a real daemon reads, writes, edits, lists and searches in agentfs", async () => {
  await using d = await startToolDaemon();
  assert.match(
    await d.call("files_write", {
      path: "notes/a.txt",
      content: "one\ntwo\nthree\n",
      mode: "create",
    }),
    /^Created notes\/a\.txt \(14 bytes\)/,
  );
  assert.equal(await Deno.readTextFile(inAgentfs(d.home, "notes", "a.txt")), "one\ntwo\nthree\n");
  assert.match(
    await d.call("files_write", { path: "notes/a.txt", content: "x", mode: "create" }),
    /already exists/,
  );
  assert.equal(
    await d.call("files_read", { path: "notes/a.txt", offset: 2, limit: 1 }),
    "     2\ttwo\n[lines 2-2 of 3 shown; read on with offset=3]",
  );
  assert.match(
    await d.call("files_write", { path: "notes/a.txt", content: "1.5", mode: "insert", line: 2 }),
    /Inserted at line 2/,
  );
  assert.match(
    await d.call("files_write", { path: "notes/a.txt", content: "four\n", mode: "append" }),
    /Appended/,
  );
  assert.equal(
    await Deno.readTextFile(inAgentfs(d.home, "notes", "a.txt")),
    "one\n1.5\ntwo\nthree\nfour\n",
  );

  // files_edit: every old must match exactly once, and a failed edit changes nothing.
  await Deno.writeTextFile(inAgentfs(d.home, "dup.txt"), "a=1\nb=1\n");
  const ambiguous = await d.call("files_edit", {
    path: "dup.txt",
    edits: [{ old: "=1", new: "=2" }],
  });
  assert.match(ambiguous, /occurs 2 times in dup\.txt/);
  const missing = await d.call("files_edit", {
    path: "dup.txt",
    edits: [{ old: "a=1", new: "a=2" }, { old: "c=1", new: "c=2" }],
  });
  assert.match(missing, /Edit 2: the old text was not found/);
  assert.equal(await Deno.readTextFile(inAgentfs(d.home, "dup.txt")), "a=1\nb=1\n");
  assert.match(
    await d.call("files_edit", {
      path: "dup.txt",
      edits: [{ old: "a=1", new: "a=2" }, { old: "b=1", new: "b=3" }],
    }),
    /Applied 2 edits/,
  );
  assert.equal(await Deno.readTextFile(inAgentfs(d.home, "dup.txt")), "a=2\nb=3\n");

  assert.equal(await d.call("files_ls", {}), ".:\ndup.txt  8\nnotes/");
  assert.equal(
    await d.call("files_search", { pattern: "^t", path: "notes" }),
    "a.txt:3: two\na.txt:4: three",
  );

  await Deno.writeFile(inAgentfs(d.home, "blob.bin"), new Uint8Array([0x89, 0x50, 0, 1, 2]));
  assert.match(await d.call("files_read", { path: "blob.bin" }), /is binary/);

  const status = await runMain(["status", "--home", d.home]);
  const files = JSON.parse(status.stdout).plugins.find((p: { name: string }) => p.name === "files");
  assert.equal(files.state, "running");
  assert.deepEqual(files.tools, [
    "files_read",
    "files_write",
    "files_edit",
    "files_ls",
    "files_search",
  ]);
  assert.ok(files.settings.some((s: { key: string }) => s.key === "plugin.files.roots"));
});

Deno.test("files: paths out of the sandbox are refused — .., absolute, symlinks, also for new files", async () => {
  await using d = await startToolDaemon();
  const outside = await Deno.makeTempDir({ prefix: "homeagent-outside-" });
  try {
    await Deno.writeTextFile(join(outside, "secret.txt"), "secret");
    await Deno.symlink(outside, inAgentfs(d.home, "link"));
    await Deno.symlink(join(outside, "secret.txt"), inAgentfs(d.home, "file-link"));
    await Deno.symlink(join(outside, "nowhere", "x"), inAgentfs(d.home, "dangling"));
    const refusals: [string, Record<string, unknown>, RegExp][] = [
      ["files_read", { path: "../config.db" }, /outside the sandbox/],
      ["files_read", { path: "/etc/passwd" }, /outside the sandbox/],
      ["files_read", { path: "link/secret.txt" }, /through a symbolic link, outside/],
      ["files_read", { path: "file-link" }, /through a symbolic link, outside/],
      ["files_write", { path: "link/new.txt", content: "x" }, /through a symbolic link, outside/],
      [
        "files_write",
        { path: "link/deep/new.txt", content: "x" },
        /through a symbolic link, outside/,
      ],
      ["files_write", { path: "dangling", content: "x" }, /dangling symbolic link/],
      ["files_write", { path: "../persona.md", content: "x" }, /outside the sandbox/],
      ["files_ls", { path: "link" }, /outside/],
      ["files_search", { pattern: "secret", path: "link" }, /outside/],
    ];
    for (const [tool, args, expected] of refusals) {
      const result = await d.call(tool, args);
      assert.match(result, expected, `${tool} ${JSON.stringify(args)}: ${result}`);
    }
    assert.deepEqual([...Deno.readDirSync(outside)].map((e) => e.name), ["secret.txt"]);
    assert.equal(await Deno.readTextFile(join(outside, "secret.txt")), "secret");
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});
