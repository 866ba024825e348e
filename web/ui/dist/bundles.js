// Written by web/build.ts (deno task build:web): every bundle of the page by file name.
import b0 from "./_other_views-72H24LCJ.js" with { type: "text" };
import b1 from "./app.js" with { type: "text" };
import b2 from "./chunk-L47NR5ND.js" with { type: "text" };
import b3 from "./graph.js" with { type: "text" };
import b4 from "./markdown.js" with { type: "text" };

/** File name → text. @type {Readonly<Record<string, string>>} */
export const BUNDLES = {
  "_other_views-72H24LCJ.js": b0,
  "app.js": b1,
  "chunk-L47NR5ND.js": b2,
  "graph.js": b3,
  "markdown.js": b4,
};
