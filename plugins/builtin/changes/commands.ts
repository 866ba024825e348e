/** `homeagent changes list | show ID | rollback ID`, on the home's files (no daemon needed). */
import { HomeAgentError } from "../../../core/mod.ts";
import { formatSummaries, showChangeset } from "./format.ts";
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
  if (action === "show") return await showChangeset(await tracker.show(id));
  const undo = await tracker.rollback(id);
  return `Rolled back ${id}; undo the rollback with: homeagent changes rollback ${undo.id}`;
}
