/**
 * The `timer` built-in (docs/plugins.md "timer"): reminders by duration, time or cron. A timer
 * firing injects "timer: <message>" at L3 with NoMemory, so it preempts a running queued task;
 * the reply goes to the channel of the turn that set the timer.
 */
import { z } from "zod";
import {
  type Clock,
  errorMessage,
  HomeAgentError,
  NO_MEMORY_META,
  type Plugin,
  type PluginSDK,
  type PluginSettingDefinition,
  type ToolResult,
} from "../../../core/mod.ts";
import { MIN_REPEAT_MS, nextCron, parseAt, parseDuration, TimerSpecError } from "./schedule.ts";
import { type TimerRecord, TimerStore } from "./store.ts";
import { Timers } from "./timers.ts";

/** The timer plugin's settings (`plugin.timer.*`). */
export const TIMER_SETTINGS: PluginSettingDefinition[] = [
  {
    key: "max_timers",
    schema: () => z.number().int().min(1).max(1000),
    default: 100,
    description: "Most timers pending at once",
  },
  {
    key: "timezone",
    schema: () => z.string().max(100),
    default: "",
    description: "IANA time zone of cron expressions (e.g. Europe/Berlin); empty: the system's",
  },
];

/** Options of the timer plugin. */
export interface TimerPluginOptions {
  /** `<home>/timers.json`. */
  file: string;
  clock: Clock;
}

const SetArgs = z.lazy(() =>
  z.object({
    duration: z.string().optional(),
    at: z.string().optional(),
    cron: z.string().optional(),
    message: z.string().min(1).max(2000),
    repeat: z.boolean().optional(),
  })
);

/** Create the timer plugin. */
export function createTimerPlugin(options: TimerPluginOptions): Plugin {
  let timers: Timers | undefined;
  return {
    name: "timer",
    async start(sdk) {
      for (const definition of TIMER_SETTINGS) sdk.settings.define(definition);
      const store = new TimerStore({ path: options.file, logger: sdk.logger });
      timers = new Timers({
        store,
        clock: options.clock,
        logger: sdk.logger,
        fire: (timer, late) => fire(sdk, timer, late),
      });
      registerTools(sdk, timers, options.clock);
      registerRoutes(sdk, timers);
      const { movedTo } = await timers.start();
      // The reminders in that file are lost: the owner hears of it, not only the log.
      if (movedTo) {
        sdk.injectInterrupt(
          `[timer] The timers file could not be read and was moved aside to ${movedTo}; ` +
            "the reminders it held will not fire. Tell the owner.",
          { priority: 2, meta: { [NO_MEMORY_META]: true } },
        );
      }
    },
    async stop() {
      await timers?.stop();
    },
  };
}

function fire(sdk: PluginSDK, timer: TimerRecord, late: boolean): void {
  const when = new Date(timer.dueAt).toISOString();
  const text = `timer: ${timer.message}` + (late ? ` (late: it was due at ${when})` : "");
  sdk.logger.info("Timer fired", { id: timer.id, late });
  sdk.injectInterrupt(text, {
    priority: 3,
    channel: timer.channel,
    meta: { [NO_MEMORY_META]: true, timer: timer.id, ...(late ? { late: true } : {}) },
  });
}

function registerTools(sdk: PluginSDK, timers: Timers, clock: Clock): void {
  // The channel each turn came in on, so a timer answers where it was asked for.
  const channels = new Map<string, string>();
  sdk.registerStage("on_input", (context) => {
    channels.set(context.input.id, context.input.channel);
    if (channels.size > 64) channels.delete(channels.keys().next().value!);
  });
  const fail = (error: unknown): ToolResult => ({ content: errorMessage(error), isError: true });
  sdk.registerTool({
    name: "timer_set",
    description: "Set a reminder: one of duration (10m), at (ISO time or HH:MM) or cron",
    parameters: {
      type: "object",
      properties: {
        duration: { type: "string" },
        at: { type: "string" },
        cron: { type: "string" },
        message: { type: "string" },
        repeat: { type: "boolean" },
      },
      required: ["message"],
      additionalProperties: false,
    },
    noMemory: true,
    handler: async (raw, context) => {
      try {
        const args = SetArgs.parse(raw);
        if (timers.list().length >= sdk.settings.get<number>("max_timers")) {
          throw new TimerSpecError(
            "Too many timers pending (plugin.timer.max_timers); cancel some",
          );
        }
        const timer = makeTimer(args, clock.now(), sdk.settings.get<string>("timezone"));
        timer.channel = channels.get(context.turnId) ?? "timer";
        await timers.add(timer);
        return `Timer ${timer.id} set for ${new Date(timer.dueAt).toISOString()}` +
          (timer.kind === "once"
            ? ""
            : ` (repeats: ${timer.cron ?? `every ${timer.everyMs! / 1000} s`})`);
      } catch (error) {
        return fail(error);
      }
    },
  });
  sdk.registerTool({
    name: "timer_list",
    description: "List pending timers",
    parameters: { type: "object", properties: {}, additionalProperties: false },
    parallelSafe: true,
    noMemory: true,
    handler: () => {
      const list = timers.list();
      if (list.length === 0) return "No timers pending";
      return list.map((t) =>
        `${t.id}  ${new Date(t.dueAt).toISOString()}  ${t.kind}` +
        `${t.cron ? ` ${t.cron}` : t.everyMs ? ` every ${t.everyMs / 1000} s` : ""}  ${t.message}`
      ).join("\n");
    },
  });
  sdk.registerTool({
    name: "timer_cancel",
    description: "Cancel a timer by id",
    parameters: {
      type: "object",
      properties: { id: { type: "string" } },
      required: ["id"],
      additionalProperties: false,
    },
    noMemory: true,
    handler: async (args) =>
      await timers.cancel(String(args.id))
        ? `Timer ${args.id} cancelled`
        : { content: `No pending timer "${args.id}" (see timer_list)`, isError: true },
  });
}

/** The pending timers for the web page, and cancelling one there. */
function registerRoutes(sdk: PluginSDK, timers: Timers): void {
  sdk.registerRoute({
    method: "GET",
    path: "timers",
    handler: () => ({ timers: timers.list() }),
  });
  sdk.registerRoute({
    method: "POST",
    path: "timers/:id/cancel",
    handler: async ({ params }) => {
      if (!await timers.cancel(params.id!)) {
        throw new HomeAgentError("timer_not_found", `No pending timer "${params.id}"`);
      }
      return { cancelled: params.id };
    },
  });
}

/** A new timer from the tool's arguments; throws TimerSpecError when they do not make one. */
export function makeTimer(
  args: z.infer<typeof SetArgs>,
  now: number,
  timezone: string,
): TimerRecord {
  const given = [args.duration, args.at, args.cron].filter((v) => v !== undefined);
  if (given.length !== 1) {
    throw new TimerSpecError("Give exactly one of duration, at or cron");
  }
  const base = {
    id: crypto.randomUUID().replaceAll("-", "").slice(0, 8),
    message: args.message,
    channel: "timer",
    createdAt: now,
    fired: 0,
  };
  if (args.duration !== undefined) {
    const ms = parseDuration(args.duration);
    if (args.repeat && ms < MIN_REPEAT_MS) {
      throw new TimerSpecError("A repeating timer needs a duration of at least 1 minute");
    }
    return {
      ...base,
      kind: args.repeat ? "every" : "once",
      dueAt: now + ms,
      ...(args.repeat ? { everyMs: ms } : {}),
    };
  }
  if (args.at !== undefined) {
    if (args.repeat) throw new TimerSpecError('An "at" timer fires once; use cron to repeat');
    return { ...base, kind: "once", dueAt: parseAt(args.at, now) };
  }
  const tz = timezone || undefined;
  const dueAt = nextCron(args.cron!, now, tz);
  if (args.repeat === false) return { ...base, kind: "once", dueAt };
  return { ...base, kind: "cron", dueAt, cron: args.cron!, ...(tz ? { timezone: tz } : {}) };
}
