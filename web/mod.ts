/** The web plugin's public entry. */
export { createApp, type WebDeps } from "./app.ts";
