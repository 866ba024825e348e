/**
 * `homeagent service install [--user] / uninstall`: a systemd unit that runs `serve` for one
 * home, restarts it when it fails (backing off, never giving up for good: a home server runs
 * unattended), and reads API keys from a private environment file instead of the unit. It writes
 * files only; starting and stopping are the owner's `systemctl` commands, which it prints.
 */
import { dirname, join } from "node:path";
import { HomeAgentError } from "../../../core/mod.ts";
export { BUNDLE_FLAGS, DAEMON_PERMISSIONS, serviceCommand } from "./launch.ts";

/** The unit's name. */
export const SERVICE_NAME = "homeagent";

/** The first line of every unit this command writes: what uninstall and reinstall recognise. */
const MARKER =
  "# Written by `homeagent service install`; `homeagent service uninstall` removes it.";

/** Where the unit goes and as whom it runs. */
export interface ServiceTarget {
  /** A user unit (`systemctl --user`), or a system unit run as `user`. */
  scope: "user" | "system";
  /** The folder of the unit file. */
  unitDir: string;
  /** The environment file with the API keys. */
  envFile: string;
  /** The account of a system unit (User=); a user unit runs as its owner. */
  user?: string;
  /** The home the unit serves. */
  home: string;
}

/** Options of serviceTarget. */
export interface ServiceTargetOptions {
  /** `--user`: a user unit. */
  user: boolean;
  /** The home as the command line resolved it (`--home`, `$HOMEAGENT_HOME`, `~/.homeagent`). */
  home: string;
  /** Whether the home was named (`--home` or `$HOMEAGENT_HOME`) rather than defaulted. */
  homeNamed: boolean;
  env: Record<string, string | undefined>;
  /** This process's uid (null where there is none). */
  uid: number | null;
  /** The text of /etc/passwd (a system unit runs as the account that called sudo). */
  passwd?: () => Promise<string>;
}

/**
 * Where the unit goes. A user unit: `$XDG_CONFIG_HOME/systemd/user`, keys in
 * `<home>/service.env`. A system unit: `/etc/systemd/system`, run as the account that called
 * sudo (never root), keys in `/etc/homeagent/service.env` (root's, read by systemd before it
 * drops to that account), the home that account's `~/.homeagent` unless one was named. Throws
 * HomeAgentError when a system unit cannot be written or has nobody to run as.
 */
export async function serviceTarget(
  options: ServiceTargetOptions,
): Promise<ServiceTarget> {
  const { env } = options;
  if (options.user) {
    const config = env.XDG_CONFIG_HOME || join(env.HOME ?? "", ".config");
    return {
      scope: "user",
      unitDir: join(config, "systemd", "user"),
      envFile: join(options.home, "service.env"),
      home: options.home,
    };
  }
  if (options.uid !== 0) {
    throw new HomeAgentError(
      "service_needs_root",
      "A system unit goes in /etc/systemd/system, which needs root: run it with sudo, or " +
        "pass --user for a unit of your own account",
    );
  }
  const user = env.SUDO_USER;
  if (!user || user === "root") {
    throw new HomeAgentError(
      "service_no_user",
      "HomeAgent never runs as root: run service install with sudo from the account that " +
        "should run it, or pass --user",
    );
  }
  const account = passwdHome(await (options.passwd ?? readPasswd)(), user);
  if (account === undefined) {
    throw new HomeAgentError("service_no_user", `No account "${user}" in /etc/passwd`);
  }
  return {
    scope: "system",
    unitDir: "/etc/systemd/system",
    envFile: "/etc/homeagent/service.env",
    user,
    home: options.homeNamed ? options.home : join(account, ".homeagent"),
  };
}

function readPasswd(): Promise<string> {
  return Deno.readTextFile("/etc/passwd");
}

/** The home folder of `user` in passwd(5) text, or undefined. */
export function passwdHome(passwd: string, user: string): string | undefined {
  for (const line of passwd.split("\n")) {
    const fields = line.split(":");
    if (fields[0] === user && fields.length >= 7) return fields[5];
  }
  return undefined;
}

/** What the unit runs. */
export interface ServiceSpec {
  /** The command line of `serve` (absolute program first), from serviceCommand. */
  command: string[];
  host?: string;
  port: number;
  /**
   * The systemd version (`systemctl --version`): from 254 on, restarts back off from 5 s to
   * 5 min; older ones get a fixed delay and no keys they would warn about. Default: 254.
   */
  systemd?: number;
}

/** The text of the unit file. */
export function unitText(target: ServiceTarget, spec: ServiceSpec): string {
  const args = [...spec.command, "--home", target.home, "--port", String(spec.port)];
  if (spec.host !== undefined) args.push("--host", spec.host);
  const system = target.scope === "system";
  return [
    MARKER,
    "[Unit]",
    "Description=HomeAgent, a personal AI agent daemon",
    "After=network-online.target",
    "Wants=network-online.target",
    // No start limit: after a long outage (a full disk, a dead network) it comes back by itself.
    "StartLimitIntervalSec=0",
    "",
    "[Service]",
    "Type=simple",
    ...(system ? [`User=${target.user}`] : []),
    `WorkingDirectory=${systemdPath(target.home)}`,
    `ExecStart=${args.map(systemdQuote).join(" ")}`,
    `EnvironmentFile=-${systemdPath(target.envFile)}`,
    "Environment=NO_COLOR=1",
    "UMask=0077",
    // Restart on a crash or a failed start: 5 s at first, growing to 5 min where systemd can.
    "Restart=on-failure",
    ...((spec.systemd ?? 254) >= 254
      ? ["RestartSec=5s", "RestartSteps=10", "RestartMaxDelaySec=5min"]
      : ["RestartSec=10s"]),
    // serve stops in order on SIGTERM (turns, plugins, memory); give it time before SIGKILL.
    "KillSignal=SIGTERM",
    // Only the guard gets the SIGTERM; it stops the agent, which stops its plugins in order.
    // Whatever is left after the timeout is killed.
    "KillMode=mixed",
    "TimeoutStopSec=30s",
    ...(system ? ["NoNewPrivileges=yes"] : []),
    "",
    "[Install]",
    `WantedBy=${system ? "multi-user.target" : "default.target"}`,
    "",
  ].join("\n");
}

/** The environment file's first contents: comments only; the owner adds the keys. */
export const ENV_TEMPLATE =
  `# Environment of the homeagent service (systemd EnvironmentFile), private: mode 0600.
# Keep API keys here rather than in the unit file. After a change:
#   systemctl --user restart homeagent   (sudo systemctl restart homeagent for a system unit)
#
# HOMEAGENT_LLM_BASE_URL=https://api.openai.com/v1
# HOMEAGENT_LLM_MODEL=gpt-4o-mini
# HOMEAGENT_LLM_API_KEY=sk-...
# HOMEAGENT_LOG_LEVEL=info
# HOMEAGENT_LOG_FILE_MB=10      (logs/homeagent.log is rotated past this size; 0: no file)
# HOMEAGENT_LOG_FILE_KEEP=5     (rotated files kept)
`;

/** The version of the systemd on this machine, or undefined without one. */
export async function systemdVersion(): Promise<number | undefined> {
  try {
    const out = await new Deno.Command("systemctl", { args: ["--version"], stderr: "null" })
      .output();
    const match = /^systemd (\d+)/.exec(new TextDecoder().decode(out.stdout));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined; // no systemctl (or no permission to run it): assume a current one
  }
}

/** What install or uninstall did, for the lines main.ts prints. */
export interface ServiceResult {
  unitFile: string;
  envFile: string;
  /** Whether the environment file was created now (else it was kept as it was). */
  envCreated?: boolean;
  /** The commands the owner runs next. */
  next: string[];
}

/**
 * Write the unit (replacing one this command wrote before, never another) and create the
 * environment file 0600 when it is missing (an existing one keeps its keys; its mode is
 * tightened). Throws HomeAgentError when a foreign unit is in the way.
 */
export async function installService(
  target: ServiceTarget,
  spec: ServiceSpec,
): Promise<ServiceResult> {
  const unitFile = join(target.unitDir, `${SERVICE_NAME}.service`);
  refuseForeign(unitFile, await readUnit(unitFile));
  await Deno.mkdir(target.unitDir, { recursive: true });
  const temp = `${unitFile}.tmp-${crypto.randomUUID().slice(0, 8)}`;
  await Deno.writeTextFile(temp, unitText(target, spec), { mode: 0o644 });
  await Deno.chmod(temp, 0o644); // whatever the umask: systemd must read it
  await Deno.rename(temp, unitFile);
  const envCreated = await ensureEnvFile(target.envFile);
  const ctl = target.scope === "user" ? "systemctl --user" : "sudo systemctl";
  const next = [`${ctl} daemon-reload && ${ctl} enable --now ${SERVICE_NAME}`];
  if (target.scope === "user") next.push("loginctl enable-linger $USER");
  return { unitFile, envFile: target.envFile, envCreated, next };
}

/**
 * Remove the unit this command wrote and its enablement link; the environment file stays (it
 * holds the owner's keys). Throws HomeAgentError for a unit it did not write, or none.
 */
export async function uninstallService(target: ServiceTarget): Promise<ServiceResult> {
  const unitFile = join(target.unitDir, `${SERVICE_NAME}.service`);
  const text = await readUnit(unitFile);
  if (text === undefined) {
    throw new HomeAgentError("service_missing", `No HomeAgent unit at "${unitFile}"`);
  }
  refuseForeign(unitFile, text);
  const wanted = target.scope === "user" ? "default.target.wants" : "multi-user.target.wants";
  await Deno.remove(join(target.unitDir, wanted, `${SERVICE_NAME}.service`)).catch(() => {});
  await Deno.remove(unitFile);
  const ctl = target.scope === "user" ? "systemctl --user" : "sudo systemctl";
  return {
    unitFile,
    envFile: target.envFile,
    next: [`${ctl} stop ${SERVICE_NAME}; ${ctl} daemon-reload`],
  };
}

/** The unit file's text, or undefined when there is none. */
async function readUnit(unitFile: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(unitFile);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

function refuseForeign(unitFile: string, text: string | undefined): void {
  if (text !== undefined && !text.startsWith(MARKER)) {
    throw new HomeAgentError(
      "service_foreign",
      `"${unitFile}" was not written by homeagent service install; move it away first`,
    );
  }
}

async function ensureEnvFile(path: string): Promise<boolean> {
  await Deno.mkdir(dirname(path), { recursive: true, mode: 0o700 });
  try {
    await Deno.writeTextFile(path, ENV_TEMPLATE, { createNew: true, mode: 0o600 });
    await Deno.chmod(path, 0o600);
    return true;
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    await Deno.chmod(path, 0o600);
    return false;
  }
}

/** A path as a systemd setting takes it (no quoting there; `%` starts a specifier). */
function systemdPath(path: string): string {
  return path.replaceAll("%", "%%");
}

/** `arg` as one word of a systemd command line: quoted when needed, `%` and `$` escaped. */
export function systemdQuote(arg: string): string {
  const escaped = arg.replaceAll("%", "%%").replaceAll("$", "$$$$");
  if (/^[\w@%+=:,./-]+$/.test(escaped)) return escaped;
  return `"${escaped.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}
