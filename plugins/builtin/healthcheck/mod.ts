/**
 * The `healthcheck` built-in (docs/plugins.md): the model checks the kernel, plugins, tools,
 * memory, LLM sources and disk; a tool it finds broken it reports; timings come from the
 * kernel's events. A run every `plugin.healthcheck.interval_min` tells the owner at L2 when
 * something is wrong or has changed, and stays silent otherwise. `homeagent doctor` runs the
 * same checks offline.
 *
 * It uses only what an external plugin's SDK offers: tools, its own settings, L2 injection and
 * event subscriptions, plus the probes (JSON in, JSON out) the composition root hands it.
 */
import { z } from "zod";
import {
  type Clock,
  type ConfigDefinition,
  type Plugin,
  type PluginSDK,
  type TimerHandle,
  type ToolDef,
} from "../../../core/mod.ts";
import {
  type Finding,
  formatFindings,
  type HealthProbes,
  runChecks,
  type ToolReport,
} from "./checks.ts";
import { PerfRecorder } from "./perf.ts";

/** Delay of the first automatic run after start. */
const FIRST_RUN_MS = 60_000;
/** Tool reports kept (the newest win). */
const MAX_REPORTS = 100;
/** Longest notice text. */
const MAX_NOTICE = 1200;

/** Options of createHealthcheckPlugin. */
export interface HealthcheckOptions {
  clock: Clock;
  /** The live probes; `tools` is given the tool count only, the plugin adds the reports. */
  probes: Omit<HealthProbes, "tools"> & { toolCount?(): number };
}

/** Define `plugin.healthcheck.*`. Call once per registry, before the daemon or `config` reads it. */
export function registerHealthcheckSettings(
  config: { define<T>(definition: ConfigDefinition<T>): void },
): void {
  config.define({
    key: "plugin.healthcheck.interval_min",
    schema: () => z.int().min(0).max(1440),
    default: 30,
    description: "Minutes between automatic checks (the first one minute after start); 0: off",
  });
  config.define({
    key: "plugin.healthcheck.disk_warn_mb",
    schema: () => z.int().min(0).max(10_000_000),
    default: 2048,
    description: "Free space on the home's disk below which the disk check warns (MB)",
  });
  config.define({
    key: "plugin.healthcheck.disk_fail_mb",
    schema: () => z.int().min(0).max(10_000_000),
    default: 256,
    description: "Free space on the home's disk below which the disk check fails (MB)",
  });
}

/** The checks' thresholds from the settings of `sdk`'s plugin. */
function diskLimits(sdk: PluginSDK) {
  return {
    warnMb: sdk.settings.get<number>("disk_warn_mb"),
    failMb: sdk.settings.get<number>("disk_fail_mb"),
  };
}

/** Create the healthcheck built-in. */
export function createHealthcheckPlugin(options: HealthcheckOptions): Plugin {
  let timer: TimerHandle | undefined;
  let stopped = false;
  const offs: (() => void)[] = [];
  return {
    name: "healthcheck",
    start(sdk) {
      stopped = false;
      const perf = new PerfRecorder(options.clock);
      offs.push(sdk.subscribe("tool_call", (e) => perf.record(e)));
      offs.push(sdk.subscribe("agent_llm_chain", (e) => perf.record(e)));
      const reports = new Map<string, ToolReport>();
      const { toolCount, ...rest } = options.probes;
      const probes: HealthProbes = {
        ...rest,
        tools: () => ({ count: toolCount?.() ?? 0, reports: [...reports.values()] }),
      };
      const check = () => runChecks(probes, diskLimits(sdk));
      const watch = new Watcher();
      const arm = (ms: number) => {
        timer = options.clock.setTimer(ms, async () => {
          const findings = await check();
          const notice = watch.notice(findings);
          if (notice && !stopped) sdk.injectInterrupt(notice, { priority: 2 });
          const minutes = sdk.settings.get<number>("interval_min");
          if (!stopped && minutes > 0) arm(minutes * 60_000);
        });
      };
      if (sdk.settings.get<number>("interval_min") > 0) arm(FIRST_RUN_MS);
      for (const tool of healthTools(check, reports, perf, options.clock)) sdk.registerTool(tool);
    },
    stop() {
      stopped = true;
      timer?.cancel();
      for (const off of offs.splice(0)) off();
    },
  };
}

/**
 * Remembers what the owner was last told: a notice goes out when the set of problems (check,
 * subject, status) differs from it, and once more when all is well again.
 */
export class Watcher {
  #told = "";

  /** The L2 notice text for `findings`, or undefined when there is nothing new to say. */
  notice(findings: Finding[]): string | undefined {
    const problems = findings.filter((f) => f.status === "warn" || f.status === "fail");
    const signature = problems.map((f) => `${f.check}|${f.subject ?? ""}|${f.status}`).sort()
      .join("\n");
    if (signature === this.#told) return undefined;
    const before = this.#told;
    this.#told = signature;
    if (problems.length === 0) {
      return before === "" ? undefined : "[healthcheck] All checks pass again.";
    }
    const lines = problems.map((f) => `${f.status} ${f.check}: ${f.detail}`).join("\n");
    const text = `[healthcheck] ${problems.length} problem(s) found; tell the owner what needs ` +
      `doing:\n${lines}`;
    return text.length > MAX_NOTICE ? `${text.slice(0, MAX_NOTICE - 1)}…` : text;
  }
}

function healthTools(
  check: () => Promise<Finding[]>,
  reports: Map<string, ToolReport>,
  perf: PerfRecorder,
  clock: Clock,
): ToolDef[] {
  const none = { type: "object", properties: {}, additionalProperties: false };
  return [
    {
      name: "healthcheck",
      description: "Check kernel, plugins, tools, memory, LLM sources and disk",
      parameters: none,
      parallelSafe: true,
      noMemory: true,
      handler: async () => {
        const findings = await check();
        const count = (s: string) => findings.filter((f) => f.status === s).length;
        return `${formatFindings(findings)}\n${count("ok")} ok, ${count("warn")} warn, ` +
          `${count("fail")} fail`;
      },
    },
    {
      name: "healthcheck_report",
      description: "Report a tool that misbehaves (status ok clears it)",
      parameters: {
        type: "object",
        properties: {
          tool: { type: "string", description: "Tool name" },
          status: { type: "string", enum: ["ok", "warn", "fail"] },
          detail: { type: "string", description: "What went wrong" },
        },
        required: ["tool", "status", "detail"],
        additionalProperties: false,
      },
      noMemory: true,
      handler: (args) => {
        const tool = String(args.tool).slice(0, 64);
        reports.delete(tool);
        if (args.status === "ok") return `Cleared the report on ${tool}`;
        reports.set(tool, {
          tool,
          status: args.status as "warn" | "fail",
          detail: String(args.detail).slice(0, 300),
          at: clock.now(),
        });
        if (reports.size > MAX_REPORTS) reports.delete(reports.keys().next().value!);
        return `Recorded: ${tool} ${args.status}`;
      },
    },
    {
      name: "healthcheck_perf",
      description: "Tool and LLM timings since start (p50, p95, max)",
      parameters: none,
      parallelSafe: true,
      noMemory: true,
      handler: () => perf.report(),
    },
  ];
}
