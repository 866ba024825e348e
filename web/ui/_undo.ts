/**
 * The "Undo" toast: a change the owner made shows for a few seconds with a button that reverts
 * it through the same routes. One at a time; a newer change replaces the offer.
 */
import { h } from "preact";
import { useEffect } from "preact/hooks";
import { signal } from "@preact/signals";
import { messageOf } from "./_api.ts";
import { t } from "./_i18n.ts";

/** How long the offer stays. */
export const UNDO_MS = 10_000;

interface Offer {
  id: number;
  message: string;
  undo: () => Promise<unknown>;
  /** After the undo went through (reload what shows the change). */
  then: () => void;
  error?: string;
}

const offer = signal<Offer | undefined>(undefined);
let next = 0;

/** Offer to undo a change just made: `undo` reverts it, `then` runs after either way. */
export function offerUndo(message: string, undo: () => Promise<unknown>, then: () => void): void {
  offer.value = { id: ++next, message, undo, then };
}

/** The toast, where the view that makes changes puts it. */
export function UndoToast() {
  const current = offer.value;
  useEffect(() => {
    if (!current || current.error) return;
    const timer = setTimeout(() => {
      if (offer.value?.id === current.id) offer.value = undefined;
    }, UNDO_MS);
    return () => clearTimeout(timer);
  }, [current?.id, current?.error]);
  if (!current) return null;
  const undo = () =>
    current.undo().then(() => {
      if (offer.value?.id === current.id) offer.value = undefined;
      current.then();
    }, (e) => (offer.value = { ...current, error: messageOf(e) }));
  return h(
    "div",
    { class: "toast", id: "undo-toast", role: "status" },
    h("span", null, current.message),
    current.error && h("span", { class: "error" }, ` ${current.error}`),
    h("button", { id: "undo", class: "small", onClick: undo }, t("undo")),
    h("button", {
      class: "small link",
      "aria-label": t("dismiss"),
      onClick: () => (offer.value = undefined),
    }, "×"),
  );
}
