/**
 * `homeagent doctor`: the healthcheck's checks over the home's files, read-only, no daemon
 * needed. A running daemon is named rather than checked (`status` asks it).
 */
import { join } from "node:path";
import { errorMessage } from "../../../core/mod.ts";
import { readManifest } from "../../host/manifest.ts";
import { formatFindings, type HealthProbes, type PluginHealth, runChecks } from "./checks.ts";

type StoreReport = Awaited<ReturnType<NonNullable<HealthProbes["memory"]>>>[number];

/** The settings doctor reads. */
interface DoctorConfig {
  get<T = unknown>(key: string): T;
  llmSources(): { name: string; model: string }[];
}

/** What `doctor` needs from the process. */
export interface DoctorIo {
  paths: { root: string; plugins: string; socket: string };
  /** The read-only checks of the home's stores (memory/: quick_check, the context file). */
  checkStores(): Promise<StoreReport[]>;
  /** config.db opened for reading settings; called only when the store checks passed it. */
  openConfig(): { registry: DoctorConfig } & Disposable;
  out: { print(line: string): void };
  /** How the owner runs the command line, for the hint at a running daemon. */
  command: string;
}

/** Run the checks; resolves 1 when one fails, else 0. */
export async function runDoctor(io: DoctorIo): Promise<number> {
  const { paths } = io;
  if (!await Deno.stat(paths.root).then((s) => s.isDirectory, () => false)) {
    io.out.print(`fail  home     no home at ${paths.root} (serve makes one)`);
    return 1;
  }
  const stores = await io.checkStores();
  const configUsable =
    stores.some((s) => s.store === "config.db" && s.detail !== "not created yet") &&
    !stores.some((s) => s.store === "config.db" && s.status === "fail");
  using opened = configUsable ? io.openConfig() : undefined;
  const registry = opened?.registry;
  const findings = await runChecks({
    plugins: () => installedPlugins(paths.plugins, registry),
    memory: () => Promise.resolve(stores),
    llm: () =>
      (registry?.llmSources() ?? []).map((s) => ({
        name: s.name,
        model: s.model,
        state: "configured",
      })),
    disk: paths.root,
  }, {
    warnMb: registry?.get<number>("plugin.healthcheck.disk_warn_mb") ?? 2048,
    failMb: registry?.get<number>("plugin.healthcheck.disk_fail_mb") ?? 256,
  });
  const conn = await Deno.connect({ transport: "unix", path: paths.socket }).catch(() => null);
  conn?.close();
  const kernel = findings.findIndex((f) => f.check === "kernel");
  if (conn && kernel >= 0) {
    findings[kernel] = {
      check: "kernel",
      status: "skip",
      detail: `daemon running: ${io.command} status`,
    };
  }
  const count = (status: string) => findings.filter((f) => f.status === status).length;
  io.out.print(formatFindings(findings));
  io.out.print(`${count("ok")} ok, ${count("warn")} warn, ${count("fail")} fail`);
  return count("fail") > 0 ? 1 : 0;
}

/** Installed plugins as the doctor sees them: a manifest that does not read is a failure. */
async function installedPlugins(dir: string, registry?: DoctorConfig): Promise<PluginHealth[]> {
  const found: PluginHealth[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isDirectory || entry.name.startsWith(".")) continue;
      try {
        await readManifest(join(dir, entry.name));
        const enabled = registry?.get<boolean>(`core.plugins.${entry.name}.enabled`) ?? true;
        found.push({ name: entry.name, state: enabled ? "installed" : "disabled" });
      } catch (error) {
        found.push({ name: entry.name, state: "failed", error: errorMessage(error) });
      }
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return found.sort((a, b) => a.name < b.name ? -1 : 1);
}
