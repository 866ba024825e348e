/** Named keys the model can press in a terminal, as the bytes a terminal sends for them. */

/** Key name → what the terminal sends (xterm, normal cursor mode). */
export const KEYS: Readonly<Record<string, string>> = {
  enter: "\r",
  tab: "\t",
  space: " ",
  backspace: "\x7f",
  esc: "\x1b",
  escape: "\x1b",
  up: "\x1b[A",
  down: "\x1b[B",
  right: "\x1b[C",
  left: "\x1b[D",
  home: "\x1b[H",
  end: "\x1b[F",
  pageup: "\x1b[5~",
  pagedown: "\x1b[6~",
  delete: "\x1b[3~",
  insert: "\x1b[2~",
  f1: "\x1bOP",
  f2: "\x1bOQ",
  f3: "\x1bOR",
  f4: "\x1bOS",
  f5: "\x1b[15~",
  f6: "\x1b[17~",
  f7: "\x1b[18~",
  f8: "\x1b[19~",
  f9: "\x1b[20~",
  f10: "\x1b[21~",
  f11: "\x1b[23~",
  f12: "\x1b[24~",
};

/**
 * The bytes of a named key: one of KEYS, or `ctrl-<letter>` (ctrl-c, ctrl-d, ctrl-z, ctrl-l,
 * …) and `ctrl-[`, `ctrl-\`, `ctrl-]`. Throws RangeError naming the known keys otherwise.
 */
export function keyBytes(name: string): string {
  const key = name.trim().toLowerCase().replace(/^(ctrl|control)[+-]/, "ctrl-").replace(
    /^\^(.)$/,
    "ctrl-$1",
  );
  const known = KEYS[key];
  if (known !== undefined) return known;
  const ctrl = /^ctrl-([a-z\[\\\]])$/.exec(key);
  if (ctrl) {
    const ch = ctrl[1]!;
    const code = ch >= "a" && ch <= "z"
      ? ch.charCodeAt(0) - 96
      : { "[": 27, "\\": 28, "]": 29 }[ch]!;
    return String.fromCharCode(code);
  }
  throw new RangeError(
    `Unknown key "${name}": use ${
      Object.keys(KEYS).join(", ")
    }, or ctrl-<letter> (ctrl-c, ctrl-d, …)`,
  );
}
