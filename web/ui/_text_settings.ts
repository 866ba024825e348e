/**
 * Every setting the daemon defines, as the settings page names it: `[label, 标签, one line of
 * help, 一行说明]`, keyed by the registry's key or pattern (`*` stands for a source, server or
 * plugin name). tests/web/ui_text_test.ts fails for a key the daemon defines that is missing
 * here, and for an entry whose key the daemon no longer defines: a module that adds a setting
 * adds its line here too. Keys of installed plugins show the plugin's own description.
 */
import { CORE_SETTING_TEXT } from "./_text_settings_core.ts";
import { MORE_SETTING_TEXT } from "./_text_settings_more.ts";

/** Every setting's `[label, 标签, help, 说明]` by key or pattern. */
export const SETTING_TEXT = { ...CORE_SETTING_TEXT, ...MORE_SETTING_TEXT };
