/**
 * The folders of installed plugins: putting a verified package in place so that a crash at any
 * moment leaves either the old or the new version (and its data/ either way), finishing or
 * undoing what a killed install left behind, and deleting only the folder a name owns.
 */
import { join } from "node:path";
import { checkPluginName, errorMessage, type Logger, PluginError } from "../../core/mod.ts";
import { type HmapPackage, writeHmap } from "./hmap.ts";
import { checkPlatform } from "./manifest.ts";

const STAGING = ".install-";
const REPLACED = ".replaced-";

/**
 * Put a verified package in place as `<root>/<name>`: written to a staging folder, the old
 * version renamed aside, the new one renamed in, the old data/ moved over, the old one removed.
 * `.install.json` records the sha256. Each step is a rename, so recoverInstalls can finish or
 * undo any of them after a kill.
 */
export async function placeHmap(root: string, pkg: HmapPackage, now: number): Promise<string> {
  const name = checkPluginName(pkg.manifest.name);
  checkPlatform(pkg.manifest); // a package built for another machine never lands
  await Deno.mkdir(root, { recursive: true, mode: 0o700 });
  const id = crypto.randomUUID().slice(0, 8);
  const staging = join(root, `${STAGING}${name}-${id}`);
  try {
    await writeHmap(pkg, staging);
    const record = { sha256: pkg.sha256, version: pkg.manifest.version, installedAt: now };
    await Deno.writeTextFile(join(staging, ".install.json"), JSON.stringify(record) + "\n");
  } catch (error) {
    await Deno.remove(staging, { recursive: true }).catch(() => {});
    throw error;
  }
  const target = join(root, name);
  const replaced = join(root, `${REPLACED}${name}-${id}`);
  const hadOld = await Deno.rename(target, replaced).then(() => true, (error) => {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  });
  await Deno.rename(staging, target);
  if (hadOld) await finishReplace(replaced, target);
  return target;
}

/** The old version's data/ goes to the new one, then the old version is removed. */
async function finishReplace(replaced: string, target: string): Promise<void> {
  await Deno.rename(join(replaced, "data"), join(target, "data")).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  await Deno.remove(replaced, { recursive: true });
}

/**
 * Clean what a failed or killed install left in `root`: staging folders are removed; an old
 * version set aside is put back when no new one took its place, else its data/ is moved to the
 * new one and it is removed. Logs each folder it handles; never throws for one folder.
 */
export async function recoverInstalls(root: string, logger: Logger): Promise<void> {
  let names: string[];
  try {
    names = (await Array.fromAsync(Deno.readDir(root))).filter((e) => e.isDirectory)
      .map((e) => e.name);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  for (const folder of names) {
    const replaced = folder.startsWith(REPLACED);
    if (!replaced && !folder.startsWith(STAGING)) continue;
    const path = join(root, folder);
    try {
      if (!replaced) await Deno.remove(path, { recursive: true });
      else await restoreReplaced(root, folder);
      logger.warn("Cleaned up after an interrupted plugin install", { folder });
    } catch (error) {
      logger.error("Cannot clean up after an interrupted plugin install", {
        folder,
        error: errorMessage(error),
      });
    }
  }
}

async function restoreReplaced(root: string, folder: string): Promise<void> {
  const name = folder.slice(REPLACED.length).replace(/-[0-9a-f]{8}$/, "");
  checkPluginName(name);
  const target = join(root, name);
  const path = join(root, folder);
  const present = await Deno.lstat(target).then(() => true, () => false);
  if (present) await finishReplace(path, target);
  else await Deno.rename(path, target);
}

/**
 * Delete the installed folder of plugin `name` (its data/ included), and nothing else: the name
 * is checked first, and the folder's real path must be `<real root>/<name>`. A symbolic link
 * in its place is removed as a link; what it points to is left alone.
 */
export async function removeInstalled(root: string, name: string): Promise<void> {
  checkPluginName(name);
  const path = join(root, name);
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new PluginError(name, `No plugin named "${name}" is installed`, { cause: error });
    }
    throw error;
  }
  if (info.isSymlink) return await Deno.remove(path);
  const real = await Deno.realPath(path);
  if (!info.isDirectory || real !== join(await Deno.realPath(root), name)) {
    throw new PluginError(
      name,
      `Cannot uninstall "${name}": "${path}" is not a plugin folder inside "${root}"`,
    );
  }
  await Deno.remove(real, { recursive: true });
}
