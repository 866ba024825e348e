/** Whether the daemon has an LLM source yet: asked once the page is up (the chat does not wait). */
import { signal } from "@preact/signals";
import { api } from "./_api.ts";
import { takeBoot } from "./_boot.ts";

/** True while the daemon has no LLM source (the page then opens on #setup). */
export const setupNeeded = signal(false);

/**
 * Ask the daemon whether a source exists (the first time the page's boot block says); with none,
 * open the setup screen.
 */
export function checkSetup(): void {
  const written = takeBoot("setupNeeded");
  if (written !== undefined) return setNeeded(written);
  api<{ needed: boolean }>("/api/v1/setup").then(
    (r) => setNeeded(r.needed),
    () => {}, // an older daemon without the route: the chat explains what to configure
  );
}

function setNeeded(needed: boolean): void {
  setupNeeded.value = needed;
  if (needed && (location.hash === "" || location.hash === "#chat")) location.hash = "#setup";
}
