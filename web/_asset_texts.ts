/**
 * The page's static files as text, embedded so one compiled binary carries the page (rebuild the
 * bundles with `deno task build:web`). Imported by web/_assets.ts on the first request for one
 * of them: a daemon nobody opens the page of does not hold their ~600 kB.
 */
import APP_JS from "./ui/dist/app.js" with { type: "text" };
import GRAPH_JS from "./ui/dist/graph.js" with { type: "text" };
import MARKDOWN_JS from "./ui/dist/markdown.js" with { type: "text" };
import APP_CSS from "./ui/app.css" with { type: "text" };
import FAVICON from "./ui/favicon.svg" with { type: "text" };
import MANIFEST from "./ui/manifest.webmanifest" with { type: "text" };

/** Path → body, for each path of ASSET_TYPES in web/_assets.ts. */
export const ASSET_BODIES: Record<string, string> = {
  "/assets/app.js": APP_JS,
  "/assets/graph.js": GRAPH_JS,
  "/assets/markdown.js": MARKDOWN_JS,
  "/assets/app.css": APP_CSS,
  "/favicon.svg": FAVICON,
  "/manifest.webmanifest": MANIFEST,
};
