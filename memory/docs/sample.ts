/** A sample of the document folder's contents, read from the files without opening the store. */
import { errorMessage, type Logger } from "../../core/mod.ts";
import { listDocIds, readDocFile } from "./_files.ts";

/**
 * The contents of up to `limit` documents in `dir` (none when the folder is missing). A file
 * that does not parse is logged and left out: the daemon's own checks report it.
 */
export async function sampleDocContents(
  dir: string,
  limit: number,
  logger: Logger,
): Promise<string[]> {
  const ids = await listDocIds(dir).catch((error) => {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  });
  const contents: string[] = [];
  for (const id of ids.slice(0, limit)) {
    const record = await readDocFile(dir, id).catch((error) => {
      logger.warn("Document unreadable; left out of the sample", {
        id,
        error: errorMessage(error),
      });
      return undefined;
    });
    if (record) contents.push(record.document.content);
  }
  return contents;
}
