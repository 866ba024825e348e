/**
 * The `files` built-in (docs/plugins.md "files"): read, write, edit, list and search text files
 * inside the sandbox. Every failure is a tool error result the model reads, never a throw.
 */
import { z } from "zod";
import {
  errorMessage,
  HomeAgentError,
  type Plugin,
  type PluginSDK,
  type PluginSettingDefinition,
  type ToolDef,
  type ToolResult,
} from "../../../core/mod.ts";
import type { ChangeRecorder } from "../changes/types.ts";
import { filesLs, filesRead, filesSearch } from "./read.ts";
import type { Sandbox } from "./sandbox.ts";
import { filesEdit, filesWrite, type WriteMode } from "./write.ts";

/** The files plugin's settings (`plugin.files.*`). */
export const FILES_SETTINGS: PluginSettingDefinition[] = [
  {
    key: "roots",
    schema: () => z.array(z.string().refine((p) => p.startsWith("/"), "expected absolute paths")),
    default: [],
    description: "Folders besides <home>/agentfs that files and cmd may use (absolute paths)",
  },
  {
    key: "max_read_bytes",
    schema: () => z.number().int().min(1024).max(100 * 1024 * 1024),
    default: 10 * 1024 * 1024,
    description: "Largest file files_read, files_search and files_edit open, in bytes",
  },
  {
    key: "max_write_bytes",
    schema: () => z.number().int().min(1024).max(100 * 1024 * 1024),
    default: 1024 * 1024,
    description: "Largest file files_write and files_edit produce, in bytes",
  },
];

/** Options of the files plugin. */
export interface FilesPluginOptions {
  sandbox: Sandbox;
  /** The change tracker; without it changes are not recorded. */
  recorder?: ChangeRecorder;
}

const str = { type: "string" } as const;
const int = { type: "integer", minimum: 1 } as const;

/** Create the files plugin. */
export function createFilesPlugin(options: FilesPluginOptions): Plugin {
  return {
    name: "files",
    start(sdk) {
      for (const definition of FILES_SETTINGS) sdk.settings.define(definition);
      for (const tool of filesTools(sdk, options)) sdk.registerTool(tool);
    },
    stop() {},
  };
}

function filesTools(sdk: PluginSDK, options: FilesPluginOptions): ToolDef[] {
  const { sandbox } = options;
  const read = () => ({ maxReadBytes: sdk.settings.get<number>("max_read_bytes") });
  const write = (turnId: string) => ({
    sandbox,
    turnId,
    recorder: options.recorder,
    maxReadBytes: sdk.settings.get<number>("max_read_bytes"),
    maxWriteBytes: sdk.settings.get<number>("max_write_bytes"),
  });
  return [
    tool(
      "files_read",
      "Read a text file (numbered lines); offset is the first line",
      {
        path: str,
        offset: int,
        limit: int,
      },
      ["path"],
      (a) => filesRead(sandbox, a as { path: string }, read()),
      true,
    ),
    tool(
      "files_write",
      "Write a text file; mode overwrite|append|insert (before line)|create",
      {
        path: str,
        content: str,
        mode: { enum: ["overwrite", "append", "insert", "create"] },
        line: int,
      },
      ["path", "content"],
      (a, turnId) =>
        filesWrite(
          a as { path: string; content: string; mode?: WriteMode; line?: number },
          write(turnId),
        ),
    ),
    tool(
      "files_edit",
      "Replace text in a file; each old must match exactly once",
      {
        path: str,
        edits: {
          type: "array",
          minItems: 1,
          maxItems: 50,
          items: {
            type: "object",
            properties: { old: str, new: str },
            required: ["old", "new"],
          },
        },
      },
      ["path", "edits"],
      (a, turnId) =>
        filesEdit(a as { path: string; edits: { old: string; new: string }[] }, write(turnId)),
    ),
    tool(
      "files_ls",
      "List a folder (default the work folder)",
      {
        path: str,
        limit: { type: "integer", minimum: 1, maximum: 500 },
      },
      [],
      (a) => filesLs(sandbox, a),
      true,
    ),
    tool(
      "files_search",
      "Search file contents for a regular expression",
      {
        pattern: str,
        path: str,
      },
      ["pattern"],
      (a) => filesSearch(sandbox, a as { pattern: string }, read()),
      true,
    ),
  ];
}

function tool(
  name: string,
  description: string,
  properties: Record<string, unknown>,
  required: string[],
  run: (args: Record<string, unknown>, turnId: string) => Promise<string>,
  parallelSafe = false,
): ToolDef {
  return {
    name,
    description,
    parameters: { type: "object", properties, required, additionalProperties: false },
    parallelSafe,
    handler: async (args, context): Promise<string | ToolResult> => {
      try {
        return await run(args, context.turnId);
      } catch (error) {
        return { content: toolError(error), isError: true };
      }
    },
  };
}

/** A tool error the model can act on: domain errors as they are, IO errors named. */
function toolError(error: unknown): string {
  if (error instanceof HomeAgentError) return error.message;
  if (error instanceof Deno.errors.PermissionDenied) {
    return `Permission denied: ${errorMessage(error)}`;
  }
  if (error instanceof Deno.errors.NotFound) return `Not found: ${errorMessage(error)}`;
  return errorMessage(error);
}
