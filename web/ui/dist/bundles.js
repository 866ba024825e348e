// Written by web/build.ts (deno task build:web): every bundle of the page by file name.
import b0 from "./chunk-SQE76S5B.js" with { type: "text" };
import b1 from "./graph.js" with { type: "text" };
import b2 from "./markdown.js" with { type: "text" };
import b3 from "./views.js" with { type: "text" };

/** File name → text. @type {Readonly<Record<string, string>>} */
export const BUNDLES = {
  "chunk-SQE76S5B.js": b0,
  "graph.js": b1,
  "markdown.js": b2,
  "views.js": b3,
};
