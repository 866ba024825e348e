/**
 * The page's static files as text, embedded so one compiled binary carries the page (rebuild the
 * bundles with `deno task build:web`). Imported by web/_assets.ts on the first request for one
 * of them: a daemon nobody opens the page of does not hold their ~700 kB.
 */
import { BUNDLES } from "./ui/dist/bundles.js";
import FAVICON from "./ui/favicon.svg" with { type: "text" };
import MANIFEST from "./ui/manifest.webmanifest" with { type: "text" };

/** Path → body: every bundle under `/assets/`, the icon and the manifest (the page carries its stylesheet). */
export const ASSET_BODIES: Readonly<Record<string, string>> = {
  ...Object.fromEntries(Object.entries(BUNDLES).map(([name, text]) => [`/assets/${name}`, text])),
  "/favicon.svg": FAVICON,
  "/manifest.webmanifest": MANIFEST,
};
