/**
 * The page's words: one catalogue where every key has English and Chinese (placeholders alike,
 * none left unused), and a label and help in both for every setting the daemon defines.
 */
import assert from "node:assert/strict";
import { registerCoreDefaults } from "../../core/mod.ts";
import { registerLuaAdapterDefaults } from "../../adapters/mod.ts";
import { registerMemoryDefaults } from "../../memory/mod.ts";
import { registerPluginSettings } from "../../plugins/mod.ts";
import { TEXT } from "../../web/ui/_text.ts";
import { VIEW_TEXT } from "../../web/ui/_text_views.ts";
import { MEMORY_TEXT } from "../../web/ui/_text_memory.ts";
import { PLUGIN_TEXT } from "../../web/ui/_text_plugins.ts";
import { SETTING_TEXT } from "../../web/ui/_text_settings.ts";
import { openTestRegistry } from "../fakes/config.ts";
import { runMain } from "../fakes/daemon.ts";

const CJK = /[\u3400-\u9fff]/;
/** Words that read the same in both languages (names, units, placeholders only). */
const SAME_IN_BOTH = new Set([
  "title",
  "channel_mcp",
  "unitMb",
  "pluginNamed",
  "kind_lua",
  "preset_openai",
]);
/** Keys the page builds from data (`t(\`group_${g}\`)`, `tMaybe("channel_" + c)`). */
const BUILT =
  /^(group_|channel_|state_|kind_|health_|etype_|runs_|about_|preset_|setupStep_|file_|enter(Whole|Number)|durationM|durationH|durationD)/;

/** The one catalogue, from its parts (a key in two parts would be shadowed). */
const PARTS = { TEXT, VIEW_TEXT, MEMORY_TEXT, PLUGIN_TEXT };
const ALL = Object.assign({}, ...Object.values(PARTS)) as Record<string, readonly [string, string]>;

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

Deno.test("UI text: every key has English and Chinese with the same placeholders, and none clash", () => {
  const keys = Object.values(PARTS).flatMap((part) => Object.keys(part));
  assert.deepEqual(keys.filter((key, i) => keys.indexOf(key) !== i), [], "keys in two parts");
  for (const [key, [en, zh]] of Object.entries(ALL)) {
    assert.ok(en.trim() !== "" && zh.trim() !== "", `"${key}" lacks a language`);
    assert.deepEqual(placeholders(zh), placeholders(en), `"${key}": placeholders differ`);
    if (!SAME_IN_BOTH.has(key) && !/^\{\w+\}$/.test(en)) {
      assert.ok(CJK.test(zh) || zh !== en, `"${key}" is not translated: "${zh}"`);
    }
  }
});

Deno.test("UI text: every key is used by the page", async () => {
  const dir = new URL("../../web/ui/", import.meta.url);
  let source = "";
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isFile && entry.name.endsWith(".ts") && !entry.name.startsWith("_text")) {
      source += await Deno.readTextFile(new URL(entry.name, dir));
    }
  }
  const unused = Object.keys(ALL).filter((key) =>
    !BUILT.test(key) && !new RegExp(`["'\`]${key}["'\`]`).test(source)
  );
  assert.deepEqual(unused, [], "catalogue keys no view uses");
});

/** Every key and pattern the daemon defines (the registrations main.ts's openConfig makes). */
function daemonDefinitions(): string[] {
  using t = openTestRegistry();
  for (const register of [registerMemoryDefaults, registerLuaAdapterDefaults]) register(t.registry);
  registerPluginSettings(t.registry);
  return t.registry.definitions().map((d) => d.key);
}

Deno.test("Settings text: a label and a line of help in both languages for every setting the daemon defines", () => {
  const defined = daemonDefinitions();
  const catalogue = SETTING_TEXT as Record<string, readonly string[]>;
  assert.deepEqual(defined.filter((key) => !(key in catalogue)), [], "settings without text");
  assert.deepEqual(
    Object.keys(catalogue).filter((key) => !defined.includes(key)),
    [],
    "text for settings the daemon no longer defines",
  );
  for (const [key, [label, labelZh, help, helpZh]] of Object.entries(catalogue)) {
    assert.ok(label && help && labelZh && helpZh, `"${key}" lacks a part`);
    assert.ok(CJK.test(helpZh!), `"${key}": the Chinese help is not Chinese`);
    assert.ok(!help!.includes("\n") && help!.length <= 120, `"${key}": help is one short line`);
  }
  assert.equal(registerCoreDefaults.name, "registerCoreDefaults"); // openTestRegistry ran it
});

Deno.test({
  name: "Settings text: every key a fresh home lists (homeagent config list) has its text",
  async fn() {
    const home = await Deno.makeTempDir({ prefix: "homeagent-ui-text-" });
    try {
      const listed = await runMain(["config", "list", "--home", home]);
      assert.equal(listed.code, 0, listed.stderr);
      const keys = listed.stdout.split("\n").filter((l) => l.includes(" = "))
        .map((l) => l.split(" = ")[0]!);
      assert.ok(keys.length > 50, `listed ${keys.length} keys`);
      const patterns = Object.keys(SETTING_TEXT).map((p) =>
        new RegExp(`^${p.replaceAll(".", "\\.").replaceAll("*", "[^.]+")}$`)
      );
      assert.deepEqual(keys.filter((key) => !patterns.some((p) => p.test(key))), []);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
});
