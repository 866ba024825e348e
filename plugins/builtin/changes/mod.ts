/**
 * The `changes` built-in: the change tracker's face — `changes_list`, `changes_show` and
 * `changes_rollback` for the model, routes for the web page, and (in commands.ts)
 * `homeagent changes …`.
 */
import { z } from "zod";
import {
  errorMessage,
  type Plugin,
  type PluginSettingDefinition,
  type ToolResult,
} from "../../../core/mod.ts";
import { formatSummaries, showChangeset } from "./format.ts";
import type { StoreLimits } from "./store.ts";
import type { ChangeTracker } from "./tracker.ts";

/** The change tracker's settings (`plugin.changes.*`). */
export const CHANGES_SETTINGS: PluginSettingDefinition[] = [
  {
    key: "max_file_bytes",
    schema: () => z.number().int().min(0).max(100 * 1024 * 1024),
    default: 1024 * 1024,
    description: "Largest file content a changeset keeps; larger ones keep a hash only",
  },
  {
    key: "keep",
    schema: () => z.number().int().min(1).max(100_000),
    default: 200,
    description: "Most changesets kept in <home>/changesets (the oldest go first)",
  },
  {
    key: "max_total_bytes",
    schema: () => z.number().int().min(1024 * 1024),
    default: 100 * 1024 * 1024,
    description: "Most bytes all changesets may take together",
  },
  {
    key: "max_age_days",
    schema: () => z.number().int().min(1).max(36_500),
    default: 30,
    description: "Changesets older than this are removed",
  },
];

/** The store limits from `plugin.changes.*` values read by `get`. */
export function changeLimits(get: (key: string) => unknown): StoreLimits {
  return {
    maxFileBytes: get("max_file_bytes") as number,
    keep: get("keep") as number,
    maxTotalBytes: get("max_total_bytes") as number,
    maxAgeDays: get("max_age_days") as number,
  };
}

/** Most characters of a diff the model reads at once. */
const MAX_SHOWN = 12_000;

function capped(text: string): string {
  if (text.length <= MAX_SHOWN) return text;
  return `${text.slice(0, MAX_SHOWN)}\n[diff cut: ${text.length - MAX_SHOWN} more characters; ` +
    "homeagent changes show prints it whole]";
}

/** Create the changes plugin over the shared tracker. */
export function createChangesPlugin(options: { tracker: ChangeTracker }): Plugin {
  const { tracker } = options;
  const fail = (error: unknown): ToolResult => ({ content: errorMessage(error), isError: true });
  return {
    name: "changes",
    start(sdk) {
      for (const definition of CHANGES_SETTINGS) sdk.settings.define(definition);
      sdk.registerTool({
        name: "changes_list",
        description: "List recent changesets (your file changes, one per turn)",
        parameters: { type: "object", properties: {}, additionalProperties: false },
        parallelSafe: true,
        noMemory: true,
        handler: async () => formatSummaries(await tracker.list()),
      });
      sdk.registerTool({
        name: "changes_show",
        description: "Show one changeset as a diff",
        parameters: {
          type: "object",
          properties: { id: { type: "string" } },
          required: ["id"],
          additionalProperties: false,
        },
        parallelSafe: true,
        noMemory: true,
        handler: async (args) => {
          try {
            return capped(await showChangeset(await tracker.show(String(args.id))));
          } catch (error) {
            return fail(error);
          }
        },
      });
      sdk.registerTool({
        name: "changes_rollback",
        description: "Undo a changeset by id; refused if its files changed since",
        parameters: {
          type: "object",
          properties: { id: { type: "string" } },
          required: ["id"],
          additionalProperties: false,
        },
        handler: async (args) => {
          try {
            const undo = await tracker.rollback(String(args.id));
            return `Rolled back ${args.id} (undo it with ${undo.id}): ` +
              undo.files.map((f) => f.path).join(", ");
          } catch (error) {
            return fail(error);
          }
        },
      });
      sdk.registerRoute({
        method: "GET",
        path: "sets",
        handler: async () => ({ changesets: await tracker.list() }),
      });
      sdk.registerRoute({
        method: "GET",
        path: "sets/:id",
        handler: async ({ params }) => {
          const changeset = await tracker.show(params.id!);
          return { changeset, diff: await showChangeset(changeset) };
        },
      });
      sdk.registerRoute({
        method: "POST",
        path: "sets/:id/rollback",
        handler: async ({ params }) => ({ rollback: await tracker.rollback(params.id!) }),
      });
    },
    stop() {},
  };
}
