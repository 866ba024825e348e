/**
 * The health checks, shared by the healthcheck plugin (live, in the daemon) and `homeagent
 * doctor` (offline, from the home's files): each turns what a probe reports into findings.
 * A probe that is absent is skipped; one that throws is a failed check, never a crash.
 */
import { errorMessage } from "../../../core/mod.ts";

/** How a check came out. */
export type HealthStatus = "ok" | "warn" | "fail" | "skip";

/** One check's result. */
export interface Finding {
  /** kernel, plugins, tools, memory, llm, disk. */
  check: string;
  status: HealthStatus;
  detail: string;
  /** What it is about within the check (a plugin, a source, a store, a tool), if anything. */
  subject?: string;
}

/** A plugin as the checks see it. */
export interface PluginHealth {
  name: string;
  state: string;
  error?: string;
  crashes?: number;
}

/** An LLM source as the checks see it ("unchecked": configured, never called). */
export interface SourceHealthView {
  name: string;
  model: string;
  state: string;
  lastError?: string;
}

/** A tool problem the model reported with healthcheck_report. */
export interface ToolReport {
  tool: string;
  status: "ok" | "warn" | "fail";
  detail: string;
  at: number;
}

/** Where the checks look; each is optional. */
export interface HealthProbes {
  kernel?(): { state: string; pending: number; capacity: number; stack: number; busyMs?: number };
  plugins?(): PluginHealth[] | Promise<PluginHealth[]>;
  tools?(): { count: number; reports: ToolReport[] };
  memory?(): Promise<{ store: string; status: "ok" | "warn" | "fail"; detail: string }[]>;
  llm?(): SourceHealthView[];
  /** The folder whose file system is measured (the home). */
  disk?: string;
}

/** Thresholds of the disk check, in MB free. */
export interface DiskLimits {
  warnMb: number;
  failMb: number;
}

/** Run every check over `probes`. Never throws. */
export async function runChecks(probes: HealthProbes, disk: DiskLimits): Promise<Finding[]> {
  const guarded = async (check: string, fn: () => Finding[] | Promise<Finding[]>) => {
    try {
      return await fn();
    } catch (error) {
      return [{ check, status: "fail" as const, detail: `check failed: ${errorMessage(error)}` }];
    }
  };
  const skip = (check: string, why: string): Finding[] => [{ check, status: "skip", detail: why }];
  const kernel = probes.kernel;
  const plugins = probes.plugins;
  const tools = probes.tools;
  const memory = probes.memory;
  const llm = probes.llm;
  const root = probes.disk;
  return [
    ...await guarded(
      "kernel",
      () => kernel ? kernelFindings(kernel()) : skip("kernel", "no daemon"),
    ),
    ...await guarded("plugins", async () => plugins ? pluginFindings(await plugins()) : []),
    ...await guarded("tools", () => tools ? toolFindings(tools()) : skip("tools", "no daemon")),
    ...await guarded("memory", async () =>
      memory
        ? (await memory()).map((s) => ({
          check: "memory",
          status: s.status,
          detail: `${s.store}: ${s.detail}`,
          subject: s.store,
        }))
        : []),
    ...await guarded("llm", () => llm ? llmFindings(llm()) : []),
    ...await guarded("disk", () => root ? diskFindings(root, disk) : []),
  ];
}

function kernelFindings(k: ReturnType<NonNullable<HealthProbes["kernel"]>>): Finding[] {
  const full = k.capacity > 0 && k.pending >= 0.8 * k.capacity;
  const busy = k.busyMs !== undefined && k.busyMs > 30 * 60_000;
  const detail = `${k.state}, ${k.pending} waiting of ${k.capacity}, ${k.stack} suspended` +
    (k.busyMs !== undefined ? `, busy ${Math.round(k.busyMs / 1000)} s` : "");
  return [{ check: "kernel", status: full || busy ? "warn" : "ok", detail }];
}

function pluginFindings(list: PluginHealth[]): Finding[] {
  return list.map((p) => {
    const status: HealthStatus = p.state === "failed"
      ? "fail"
      : p.state === "restarting" || (p.crashes ?? 0) > 0
      ? "warn"
      : "ok";
    const crashes = p.crashes ? `, ${p.crashes} crashes in 5 minutes` : "";
    return {
      check: "plugins",
      status,
      detail: `${p.name}: ${p.state}${crashes}${p.error ? ` (${p.error})` : ""}`,
      subject: p.name,
    };
  });
}

function toolFindings(t: { count: number; reports: ToolReport[] }): Finding[] {
  const reported = t.reports.filter((r) => r.status !== "ok").map((r) => ({
    check: "tools",
    status: r.status,
    detail: `${r.tool}: ${r.detail} (reported)`,
    subject: r.tool,
  }));
  return [{ check: "tools", status: "ok", detail: `${t.count} tools` }, ...reported];
}

function llmFindings(sources: SourceHealthView[]): Finding[] {
  if (sources.length === 0) {
    return [{ check: "llm", status: "warn", detail: "no LLM source is configured" }];
  }
  const usable = sources.filter((s) => s.state !== "unusable").length;
  return sources.map((s) => ({
    check: "llm",
    status: s.state === "unusable"
      ? (usable === 0 ? "fail" : "warn")
      : s.state === "degraded"
      ? "warn"
      : "ok",
    detail: `${s.name} (${s.model || "no model"}): ${s.state}${
      s.lastError ? ` — ${s.lastError}` : ""
    }`,
    subject: s.name,
  }));
}

async function diskFindings(root: string, limits: DiskLimits): Promise<Finding[]> {
  // node:fs/promises costs the daemon ~1 MB and ~40 ms at start; a disk check runs later.
  const { statfs } = await import("node:fs/promises");
  const fs = await statfs(root);
  const free = fs.bavail * fs.bsize;
  const total = fs.blocks * fs.bsize;
  const mb = free / 1048576;
  const status: HealthStatus = mb < limits.failMb ? "fail" : mb < limits.warnMb ? "warn" : "ok";
  const share = total > 0 ? ` (${Math.round((100 * free) / total)}%)` : "";
  return [{
    check: "disk",
    status,
    detail: `${formatBytes(free)} free of ${formatBytes(total)}${share} at ${root}`,
  }];
}

/** Bytes in words: "512 B", "3.4 GB". */
export function formatBytes(bytes: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/** Findings as lines: `fail  plugins  echo: failed (…)`. */
export function formatFindings(findings: Finding[]): string {
  return findings.map((f) => `${f.status.padEnd(4)}  ${f.check.padEnd(7)}  ${f.detail}`).join("\n");
}
