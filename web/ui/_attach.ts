/**
 * Images in the chat: pick (a file button), paste and drop upload each image to
 * /api/v1/media at once; the thumbnails wait above the input until the message is sent with
 * their digests. The server decides what an upload is; this only keeps what it accepted.
 */
import { h } from "preact";
import { signal } from "@preact/signals";
import { ApiError, messageOf } from "./_api.ts";
import { t } from "./_i18n.ts";

/** A stored image, as the server described it. */
export interface Attachment {
  digest: string;
  mime: string;
  size: number;
}

/** Images uploaded for the message being written. */
export const pending = signal<Attachment[]>([]);
/** The last upload refusal, shown under the thumbnails. */
const refusal = signal<string>("");

/** Where the server serves a stored image (the session cookie authorises it). */
export function mediaUrl(digest: string): string {
  return `/api/v1/media/${digest}`;
}

async function upload(file: File): Promise<void> {
  const response = await fetch("/api/v1/media", {
    method: "POST",
    body: file,
    headers: { "content-type": file.type || "application/octet-stream" },
    credentials: "same-origin",
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = (body as { error?: { code?: string; message?: string } }).error;
    throw new ApiError(response.status, error?.code ?? "", error?.message ?? response.statusText);
  }
  const ref = body as Attachment;
  if (!pending.value.some((a) => a.digest === ref.digest)) pending.value = [...pending.value, ref];
}

/** Upload every image among `files`, one at a time; a refusal is shown, the rest go on. */
export async function addFiles(files: Iterable<File>): Promise<void> {
  refusal.value = "";
  for (const file of files) {
    try {
      await upload(file);
    } catch (error) {
      refusal.value = `${file.name}: ${messageOf(error)}`;
    }
  }
}

/** Paste: the clipboard's image files are uploaded (text pastes as usual). */
export function onPaste(e: ClipboardEvent): void {
  const files = [...(e.clipboardData?.files ?? [])];
  if (files.length === 0) return;
  e.preventDefault();
  void addFiles(files);
}

/** Drop: the dropped files are uploaded. */
export function onDrop(e: DragEvent): void {
  const files = [...(e.dataTransfer?.files ?? [])];
  if (files.length === 0) return;
  e.preventDefault();
  void addFiles(files);
}

/** Take the pending images for a message being sent. */
export function takePending(): Attachment[] {
  const list = pending.value;
  pending.value = [];
  refusal.value = "";
  return list;
}

/** Thumbnails of images (in the history or waiting to be sent). */
export function Thumbs({ digests, remove }: { digests: string[]; remove?: (d: string) => void }) {
  if (digests.length === 0) return null;
  return h(
    "div",
    { class: "thumbs" },
    digests.map((d) =>
      h(
        "span",
        { key: d, class: "thumb" },
        h("img", { src: mediaUrl(d), alt: t("image"), "data-digest": d }),
        remove && h("button", { type: "button", class: "unattach", onClick: () => remove(d) }, "×"),
      )
    ),
  );
}

/** The picker button, its hidden file input and the waiting thumbnails. */
export function AttachBar() {
  const remove = (digest: string) =>
    pending.value = pending.value.filter((a) => a.digest !== digest);
  return h(
    "div",
    { class: "attach" },
    h(Thumbs, { digests: pending.value.map((a) => a.digest), remove }),
    refusal.value !== "" && h("div", { class: "refusal", role: "alert" }, refusal.value),
    h("input", {
      id: "attach-file",
      type: "file",
      accept: "image/png,image/jpeg,image/gif,image/webp",
      multiple: true,
      hidden: true,
      onChange: (e: Event) => {
        const input = e.target as HTMLInputElement;
        void addFiles([...(input.files ?? [])]).then(() => input.value = "");
      },
    }),
    h("button", {
      type: "button",
      id: "attach",
      title: t("attach"),
      onClick: () => (document.getElementById("attach-file") as HTMLInputElement).click(),
    }, t("imageButton")),
  );
}
