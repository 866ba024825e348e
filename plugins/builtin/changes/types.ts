/** What the files and cmd plugins report to the change tracker. */

/** One file's change: contents before and after; null means the file did not exist. */
export interface FileChange {
  /** Absolute real path. */
  path: string;
  before: Uint8Array | null;
  after: Uint8Array | null;
  /** Set when the before content is unknown (too large or unreadable): rollback will refuse. */
  beforeUnknown?: boolean;
}

/**
 * Records changes into the changeset of their turn; `untracked` names changed files that
 * could not be kept (too large). Rejects only on a storage failure.
 */
export interface ChangeRecorder {
  record(turnId: string, tool: string, changes: FileChange[], untracked?: string[]): Promise<void>;
}
