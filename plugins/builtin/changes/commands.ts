/** `homeagent changes list | show ID | rollback ID`, on the home's files (no daemon needed). */
import { createTwoFilesPatch } from "diff";
import { HomeAgentError } from "../../../core/mod.ts";
import { type Changeset, contentBytes, type StoredContent } from "./store.ts";
import { formatSummaries } from "./mod.ts";
import type { ChangeTracker } from "./tracker.ts";

/** One of the `changes` actions. */
export type ChangesAction = "list" | "show" | "rollback";

/** Run one action; returns the text to print. Throws HomeAgentError (not found, conflict). */
export async function changesCommand(
  tracker: ChangeTracker,
  action: ChangesAction,
  id?: string,
): Promise<string> {
  if (action === "list") return formatSummaries(await tracker.list(), 100);
  if (!id) throw new HomeAgentError("usage", `changes ${action} needs a changeset id`);
  if (action === "show") return showChangeset(await tracker.show(id));
  const undo = await tracker.rollback(id);
  return `Rolled back ${id}; undo the rollback with: homeagent changes rollback ${undo.id}`;
}

/** A changeset as a unified diff per file (binary or unkept contents summarised). */
export function showChangeset(set: Changeset): string {
  const head = [
    `changeset ${set.id}  turn ${set.turnId}  ${new Date(set.createdAt).toISOString()}`,
    `tools: ${set.tools.join(", ")}`,
    ...(set.rollbackOf ? [`rollback of ${set.rollbackOf}`] : []),
    ...(set.rolledBack ? [`rolled back by ${set.rolledBack.by}`] : []),
    ...(set.untracked ?? []).map((u) => `untracked: ${u}`),
  ];
  const parts = set.files.map((file) => {
    const before = text(file.before);
    const after = text(file.after);
    if (before === undefined || after === undefined) {
      return `--- ${file.path}\n${describe("before", file.before)}\n${
        describe("after", file.after)
      }`;
    }
    return createTwoFilesPatch(file.path, file.path, before, after, "before", "after")
      .split("\n").slice(1).join("\n"); // without the "Index:" line
  });
  return [...head, "", ...parts].join("\n");
}

function text(content: StoredContent | null): string | undefined {
  if (content === null) return "";
  const bytes = contentBytes(content);
  if (!bytes) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function describe(side: string, content: StoredContent | null): string {
  if (content === null) return `${side}: (no file)`;
  const kept = content.base64 === undefined ? "content not kept" : "binary";
  return `${side}: ${content.size} bytes, sha256 ${content.sha256} (${kept})`;
}
