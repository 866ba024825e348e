/** Whether the daemon has an LLM source yet: asked once the page is up (the chat does not wait). */
import { signal } from "@preact/signals";
import { api } from "./_api.ts";

/** True while the daemon has no LLM source (the page then opens on #setup). */
export const setupNeeded = signal(false);

/** Ask the daemon whether a source exists; with none, open the setup screen. */
export function checkSetup(): void {
  api<{ needed: boolean }>("/api/v1/setup").then((r) => {
    setupNeeded.value = r.needed;
    if (r.needed && (location.hash === "" || location.hash === "#chat")) location.hash = "#setup";
  }, () => {}); // an older daemon without the route: the chat explains what to configure
}
