/** Changesets as text: one line each for lists, a unified diff per file for one. */
import { type Changeset, contentBytes, type StoredContent } from "./store.ts";
import type { ChangesetSummary } from "./tracker.ts";

/** One line per changeset, newest first. */
export function formatSummaries(sets: ChangesetSummary[], limit = 20): string {
  if (sets.length === 0) return "No changes recorded";
  return sets.slice(0, limit).map((s) => {
    const when = new Date(s.createdAt).toISOString().slice(0, 19).replace("T", " ");
    const files = s.files.map((f) => `${f.change} ${f.path}`).join(", ");
    const notes = [
      s.rollbackOf ? `rollback of ${s.rollbackOf}` : "",
      s.rolledBack ? `rolled back by ${s.rolledBack.by}` : "",
      s.untracked?.length ? `${s.untracked.length} untracked` : "",
    ].filter(Boolean).join("; ");
    return `${s.id}  ${when}  [${s.tools.join(",")}] ${files}${notes ? `  (${notes})` : ""}`;
  }).join("\n");
}

/**
 * A changeset as a unified diff per file (binary or unkept contents summarised). diff is
 * loaded by the first one shown, not with the daemon.
 */
export async function showChangeset(set: Changeset): Promise<string> {
  const { createTwoFilesPatch } = await import("diff");
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
