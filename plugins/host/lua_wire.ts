/**
 * Messages between a Lua plugin's host (lua.ts, in the kernel) and its worker (lua_worker.ts).
 * The host starts one call at a time and answers the worker's requests; what comes back from
 * the worker carries values a hostile script chose, so the host parses it with these schemas.
 */
import { z } from "zod";
import type { LuaBreach, LuaLimits } from "../../core/mod.ts";

/** The entry points of lua_prelude.lua a call may run. */
export type LuaEntry = "load" | "start" | "stop" | "invoke";

/** Host → worker. */
export type HostMessage =
  | {
    type: "init";
    plugin: string;
    limits: LuaLimits;
    /** Wall cap of one call, waits on the host included, ms. */
    wallMs: number;
    wasmPath?: string;
  }
  | { type: "call"; id: number; entry: LuaEntry; args: unknown[] }
  | { type: "reply"; id: number; ok: true; value: unknown }
  | { type: "reply"; id: number; ok: false; error: string };

const Breach = z.lazy(() =>
  z.object({
    kind: z.enum(["instructions", "time", "memory"]),
    limit: z.number(),
    where: z.string().max(1000).optional(),
    detail: z.string().max(1000).optional(),
  }) satisfies z.ZodType<LuaBreach>
);

/** Worker → host. */
export const WorkerMessage = z.lazy(() =>
  z.discriminatedUnion("type", [
    z.object({ type: z.literal("ready") }),
    z.object({ type: z.literal("fatal"), error: z.string().max(10_000) }),
    z.object({
      type: z.literal("request"),
      id: z.number().int(),
      method: z.string().max(100),
      params: z.unknown(),
    }),
    /** The running call waits on request `on`: the host's watchdog pauses until it answers. */
    z.object({ type: z.literal("wait"), on: z.number().int() }),
    z.object({ type: z.literal("log"), level: z.string().max(20), message: z.string() }),
    /** A call ended: its value, or its error and any budget it ran out of. */
    z.object({
      type: z.literal("result"),
      id: z.number().int(),
      ok: z.boolean(),
      value: z.unknown().optional(),
      error: z.string().max(10_000).optional(),
      breach: Breach.optional(),
      /** What the VM holds after the call. */
      memoryBytes: z.number(),
    }),
  ])
);

/** A parsed worker message. */
export type WorkerMessage = z.infer<typeof WorkerMessage>;
