// Written by web/build.ts (deno task build:web): every bundle of the page by file name.
import b0 from "./_knowledge-S7QNLRFH.js" with { type: "text" };
import b1 from "./_memory-NGLKB42A.js" with { type: "text" };
import b2 from "./_panels-FNDOXDV4.js" with { type: "text" };
import b3 from "./_plugins-DSRNCHWB.js" with { type: "text" };
import b4 from "./_settings-XCU62R6Z.js" with { type: "text" };
import b5 from "./_setup-ILCUXMME.js" with { type: "text" };
import b6 from "./_skills-AVCRECQ2.js" with { type: "text" };
import b7 from "./app.js" with { type: "text" };
import b8 from "./chunk-DNIUFTUM.js" with { type: "text" };
import b9 from "./chunk-NYGO2BYL.js" with { type: "text" };
import b10 from "./chunk-O57MN7TQ.js" with { type: "text" };
import b11 from "./chunk-PWJRQHKR.js" with { type: "text" };
import b12 from "./chunk-U26E7IKR.js" with { type: "text" };
import b13 from "./graph.js" with { type: "text" };
import b14 from "./markdown.js" with { type: "text" };

/** File name → text. @type {Readonly<Record<string, string>>} */
export const BUNDLES = {
  "_knowledge-S7QNLRFH.js": b0,
  "_memory-NGLKB42A.js": b1,
  "_panels-FNDOXDV4.js": b2,
  "_plugins-DSRNCHWB.js": b3,
  "_settings-XCU62R6Z.js": b4,
  "_setup-ILCUXMME.js": b5,
  "_skills-AVCRECQ2.js": b6,
  "app.js": b7,
  "chunk-DNIUFTUM.js": b8,
  "chunk-NYGO2BYL.js": b9,
  "chunk-O57MN7TQ.js": b10,
  "chunk-PWJRQHKR.js": b11,
  "chunk-U26E7IKR.js": b12,
  "graph.js": b13,
  "markdown.js": b14,
};
