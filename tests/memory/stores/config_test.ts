import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { SqliteConfigStore } from "../../../memory/stores/config.ts";
import { DatabaseError, openDatabase, withTransaction } from "../../../memory/sqlite.ts";

async function withTempDir(fn: (dir: string) => void | Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "homeagent_config_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("SqliteConfigStore round-trips rows and lists them by prefix in first-insert order", () => {
  const store = new SqliteConfigStore({ path: ":memory:" });
  try {
    store.set("config", "core.b", "1", 10);
    store.set("config", "core.a", '"x"', 20);
    store.set("config", "other.c", "true", 30);
    store.set("config", "core.b", "2", 40);
    assert.deepEqual(store.get("config", "core.b"), { key: "core.b", value: "2", updatedAt: 40 });
    assert.equal(store.get("config", "core.none"), undefined);
    assert.deepEqual(store.list("config", "core.").map((r) => r.key), ["core.b", "core.a"]);
    assert.equal(store.list("config").length, 3);
    store.delete("config", "core.b");
    store.delete("config", "core.none");
    assert.deepEqual(store.list("config", "core.").map((r) => r.key), ["core.a"]);
  } finally {
    store.close();
  }
});

Deno.test("SqliteConfigStore treats LIKE wildcards in a prefix literally", () => {
  const store = new SqliteConfigStore({ path: ":memory:" });
  try {
    store.set("config", "core.a_b", "1", 1);
    store.set("config", "core.axb", "2", 1);
    assert.deepEqual(store.list("config", "core.a_").map((r) => r.key), ["core.a_b"]);
    assert.deepEqual(store.list("config", "core.a%").map((r) => r.key), []);
  } finally {
    store.close();
  }
});

Deno.test("SqliteConfigStore creates a plugin table on first write", () => {
  const store = new SqliteConfigStore({ path: ":memory:" });
  try {
    assert.deepEqual(store.tables(), ["config"]);
    assert.equal(store.get("config_weather", "plugin.weather.city"), undefined);
    assert.deepEqual(store.list("config_weather"), []);
    store.delete("config_weather", "plugin.weather.city");
    assert.deepEqual(store.tables(), ["config"]);
    store.set("config_weather", "plugin.weather.city", '"Oslo"', 5);
    assert.deepEqual(store.tables(), ["config", "config_weather"]);
    assert.equal(store.get("config_weather", "plugin.weather.city")?.value, '"Oslo"');
    assert.equal(store.get("config", "plugin.weather.city"), undefined);
  } finally {
    store.close();
  }
});

Deno.test("SqliteConfigStore refuses table names that are not config tables", () => {
  const store = new SqliteConfigStore({ path: ":memory:" });
  try {
    for (const table of ['config"; drop table config; --', "users", "config_Weather", "config_"]) {
      assert.throws(() => store.set(table, "k", "1", 1), TypeError);
      assert.throws(() => store.get(table, "k"), TypeError);
    }
    assert.deepEqual(store.tables(), ["config"]);
  } finally {
    store.close();
  }
});

Deno.test("SqliteConfigStore keeps rows across reopening a file, in WAL with integer times", async () => {
  await withTempDir((dir) => {
    const path = join(dir, "config.db");
    const first = new SqliteConfigStore({ path });
    first.set("config", "core.x", "1", 1_767_225_600_123);
    first.set("config_timer", "plugin.timer.every", '"5m"', 7);
    first.close();
    first.close();

    const second = new SqliteConfigStore({ path });
    try {
      assert.equal(second.get("config", "core.x")?.updatedAt, 1_767_225_600_123);
      assert.equal(second.get("config_timer", "plugin.timer.every")?.value, '"5m"');
    } finally {
      second.close();
    }

    const raw = new DatabaseSync(path);
    try {
      assert.equal(raw.prepare("select typeof(updated_at) t from config").get()?.t, "integer");
      assert.equal(raw.prepare("pragma journal_mode").get()?.journal_mode, "wal");
      assert.equal(raw.prepare("pragma user_version").get()?.user_version, 1);
    } finally {
      raw.close();
    }
  });
});

Deno.test("SqliteConfigStore sees a plugin table that another connection created", async () => {
  await withTempDir((dir) => {
    const path = join(dir, "config.db");
    const daemon = new SqliteConfigStore({ path });
    const cli = new SqliteConfigStore({ path });
    try {
      assert.equal(daemon.get("config_qq", "plugin.qq.token"), undefined);
      cli.set("config_qq", "plugin.qq.token", '"t"', 1);
      assert.equal(daemon.get("config_qq", "plugin.qq.token")?.value, '"t"');
      assert.deepEqual(daemon.tables(), ["config", "config_qq"]);
    } finally {
      cli.close();
      daemon.close();
    }
  });
});

Deno.test("SqliteConfigStore serves reads from its cache yet sees another connection's writes", async () => {
  await withTempDir((dir) => {
    const path = join(dir, "config.db");
    const daemon = new SqliteConfigStore({ path });
    const cli = new SqliteConfigStore({ path });
    try {
      daemon.set("config", "core.a", "1", 1);
      assert.equal(daemon.get("config", "core.a")?.value, "1");
      cli.set("config", "core.a", "2", 2);
      cli.set("config", "core.b", "3", 3);
      assert.equal(daemon.get("config", "core.a")?.value, "2");
      assert.deepEqual(daemon.list("config", "core.").map((r) => r.key), ["core.a", "core.b"]);
      cli.delete("config", "core.b");
      assert.equal(daemon.get("config", "core.b"), undefined);
      daemon.set("config", "core.a", "4", 4);
      assert.equal(cli.get("config", "core.a")?.value, "4");
    } finally {
      cli.close();
      daemon.close();
    }
  });
});

Deno.test("SqliteConfigStore refuses a corrupt file, naming it, and leaves it in place", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "config.db");
    const garbage = "this is not a database, just text\n".repeat(200);
    await Deno.writeTextFile(path, garbage);
    assert.throws(
      () => new SqliteConfigStore({ path }),
      (error: unknown) => {
        assert.ok(error instanceof DatabaseError);
        assert.equal(error.code, "db_corrupt");
        assert.equal(error.path, path);
        assert.match(error.message, new RegExp(`Cannot open database "${path}"`));
        return true;
      },
    );
    assert.equal(await Deno.readTextFile(path), garbage);
  });
});

Deno.test("openDatabase applies each migration once, in order, and refuses a newer schema", async () => {
  await withTempDir((dir) => {
    const path = join(dir, "graph.db");
    const v1 = ["create table a (x integer)"];
    const v2 = [...v1, "insert into a values (1); create table b (y text)"];
    openDatabase(path, { migrations: v1 }).close();
    const db = openDatabase(path, { migrations: v2 });
    try {
      assert.equal(db.prepare("select count(*) n from a").get()?.n, 1);
      assert.equal(db.prepare("pragma user_version").get()?.user_version, 2);
    } finally {
      db.close();
    }
    openDatabase(path, { migrations: v2 }).close();
    assert.throws(
      () => openDatabase(path, { migrations: v1 }),
      (error: unknown) =>
        error instanceof DatabaseError && error.code === "db_too_new" &&
        error.message.includes("schema version 2 is newer than this build knows (1)"),
    );
  });
});

Deno.test("openDatabase rolls back a failing migration and names the database", async () => {
  await withTempDir((dir) => {
    const path = join(dir, "graph.db");
    const migrations = ["create table a (x)", "create table b (y); create table a (z)"];
    assert.throws(
      () => openDatabase(path, { migrations }),
      (error: unknown) =>
        error instanceof DatabaseError && error.code === "db_migration" &&
        error.message.startsWith(`Cannot migrate database "${path}" to schema version 2`),
    );
    const raw = new DatabaseSync(path);
    try {
      assert.equal(raw.prepare("pragma user_version").get()?.user_version, 0);
      assert.equal(raw.prepare("select count(*) n from sqlite_master").get()?.n, 0);
    } finally {
      raw.close();
    }
  });
});

Deno.test("withTransaction commits a result and rolls back on a throw", () => {
  const db = openDatabase(":memory:", { migrations: ["create table t (x integer)"] });
  try {
    assert.equal(
      withTransaction(db, () => db.prepare("insert into t values (1)").run().changes),
      1,
    );
    assert.throws(() =>
      withTransaction(db, () => {
        db.exec("insert into t values (2)");
        throw new RangeError("stop");
      }), RangeError);
    assert.equal(db.prepare("select count(*) n from t").get()?.n, 1);
    assert.equal(db.isTransaction, false);
  } finally {
    db.close();
  }
});
