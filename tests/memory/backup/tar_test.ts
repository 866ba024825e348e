import assert from "node:assert/strict";
import { join } from "node:path";
import { readTar, TarError, type TarFile, tarStream } from "../../../memory/backup/tar.ts";

const encoder = new TextEncoder();

function file(path: string, bytes: Uint8Array): TarFile {
  return {
    path,
    size: bytes.length,
    mtime: Date.UTC(2026, 0, 1),
    open: () => Promise.resolve(new Blob([bytes as Uint8Array<ArrayBuffer>]).stream()),
  };
}

async function* each(files: TarFile[]) {
  yield* files;
}

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(
    await new Response(stream as ReadableStream<Uint8Array<ArrayBuffer>>).arrayBuffer(),
  );
}

async function readAll(bytes: Uint8Array): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  await readTar(new Blob([bytes as Uint8Array<ArrayBuffer>]).stream(), async (e) => {
    out.set(e.path, new TextDecoder().decode(await bytesOf(e.body)));
  });
  return out;
}

const LONG = `memory/media/blobs/ab/${"c".repeat(90)}/${"名".repeat(20)}.bin`;
const BIG = "x".repeat(300_000) + "end";

Deno.test("tarStream writes what GNU tar reads, long names and empty files included", async () => {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-tar-" });
  try {
    const archive = join(dir, "a.tar");
    const tar = await bytesOf(tarStream(each([
      file("config.db", encoder.encode("db bytes")),
      file("empty.txt", new Uint8Array(0)),
      file(LONG, encoder.encode("long")),
      file("memory/big.txt", encoder.encode(BIG)),
    ])));
    assert.equal(tar.length % 512, 0);
    await Deno.writeFile(archive, tar);
    const out = join(dir, "out");
    await Deno.mkdir(out);
    const gnu = await new Deno.Command("tar", { args: ["-xf", archive, "-C", out] }).output();
    assert.equal(gnu.code, 0, new TextDecoder().decode(gnu.stderr));
    assert.equal(await Deno.readTextFile(join(out, "config.db")), "db bytes");
    assert.equal(await Deno.readTextFile(join(out, "empty.txt")), "");
    assert.equal(await Deno.readTextFile(join(out, LONG)), "long");
    assert.equal(await Deno.readTextFile(join(out, "memory/big.txt")), BIG);
    assert.deepEqual(
      await readAll(tar),
      new Map([
        ["config.db", "db bytes"],
        ["empty.txt", ""],
        [LONG, "long"],
        ["memory/big.txt", BIG],
      ]),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readTar reads what GNU tar writes, and refuses links, damage and a cut-off archive", async () => {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-tar-" });
  try {
    await Deno.mkdir(join(dir, "src/sub"), { recursive: true });
    await Deno.writeTextFile(join(dir, "src/sub/a.txt"), "alpha");
    await Deno.writeTextFile(join(dir, `src/${"n".repeat(120)}.txt`), "long name");
    const made = await new Deno.Command("tar", {
      args: ["-cf", join(dir, "gnu.tar"), "--format=posix", "-C", join(dir, "src"), "."],
    }).output();
    assert.equal(made.code, 0);
    const files = await readAll(await Deno.readFile(join(dir, "gnu.tar")));
    assert.equal(files.get("./sub/a.txt"), "alpha");
    assert.equal(files.get(`./${"n".repeat(120)}.txt`), "long name");

    await Deno.symlink("sub/a.txt", join(dir, "src/link"));
    await new Deno.Command("tar", {
      args: ["-cf", join(dir, "link.tar"), "-C", join(dir, "src"), "link"],
    }).output();
    await assert.rejects(
      readAll(await Deno.readFile(join(dir, "link.tar"))),
      (e) => e instanceof TarError && /not a file or a folder/.test(e.message),
    );
    const ours = await bytesOf(tarStream(each([file("a.txt", encoder.encode("alpha"))])));
    const damaged = ours.slice();
    damaged[10] = damaged[10]! ^ 1;
    await assert.rejects(readAll(damaged), /checksum/);
    await assert.rejects(readAll(ours.slice(0, 600)), /cut off/);
    await assert.rejects(readAll(ours.slice(0, 1024)), /end marker/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
