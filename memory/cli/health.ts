/**
 * Read-only checks of a home's stores for `homeagent doctor` and the healthcheck plugin: each
 * SQLite database passes `pragma quick_check`, the context window parses. Nothing is written,
 * moved or created, so it is safe beside a running daemon.
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { errorMessage } from "../../core/mod.ts";
import { PRIVATE_FILES } from "../home.ts";

/** What one store looks like. */
export interface StoreCheck {
  /** Path relative to the home. */
  store: string;
  status: "ok" | "fail";
  detail: string;
}

/** Check every store of the home at `root`; a missing one is fine (not created yet). */
export async function checkStores(root: string): Promise<StoreCheck[]> {
  const checks: StoreCheck[] = [];
  for (const store of PRIVATE_FILES) {
    if (store.endsWith(".journal")) continue; // replayed and validated by the context store
    const path = join(root, store);
    const size = await Deno.stat(path).then((s) => s.size, () => undefined);
    if (size === undefined) {
      checks.push({ store, status: "ok", detail: "not created yet" });
      continue;
    }
    const problem = store.endsWith(".db") ? checkDatabase(path) : await checkJson(path);
    checks.push(
      problem === undefined
        ? { store, status: "ok", detail: `${(size / 1048576).toFixed(1)} MB, intact` }
        : { store, status: "fail", detail: problem },
    );
  }
  return checks;
}

function checkDatabase(path: string): string | undefined {
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(path, { readOnly: true });
    const rows = db.prepare("pragma quick_check").all();
    const bad = rows.map((r) => String(r.quick_check)).filter((r) => r !== "ok");
    return bad.length === 0 ? undefined : `integrity check failed: ${bad.slice(0, 3).join("; ")}`;
  } catch (error) {
    return `cannot be read as a SQLite database: ${errorMessage(error)}`;
  } finally {
    db?.close();
  }
}

async function checkJson(path: string): Promise<string | undefined> {
  try {
    JSON.parse(await Deno.readTextFile(path));
    return undefined;
  } catch (error) {
    return `not valid JSON: ${errorMessage(error)}`;
  }
}
