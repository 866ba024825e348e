/**
 * The conversation as the raw text log keeps it: one record per turn, from every channel. The
 * log (memory/log/) writes it; the web page and the CLI read it back a page at a time.
 */
import type { ReplyStatus } from "../events.ts";

/** One turn: the input, where it came from, and the reply. */
export interface ConversationTurn {
  turnId: string;
  source: string;
  channel: string;
  sender?: string;
  input: string;
  reply: string;
  /** When the input was received (ms). */
  inputAt: number;
  /** When the reply was written (ms). */
  replyAt: number;
  /** How the turn ended, when not "ok". */
  status?: ReplyStatus;
  /** The tools the turn called, in order (names only: arguments may hold secrets). */
  tools?: { name: string; ok: boolean }[];
  /** What the turn sent through output channels (`output_send__<channel>`), in order. */
  sent?: { channel: string; text: string }[];
}

/** What one page of the conversation asks for. */
export interface ConversationQuery {
  /** The cursor a newer page handed out: only turns before it. */
  before?: string;
  /** Turns in the page; default 30, at most 200. */
  limit?: number;
  /** Only turns whose input, reply or sent messages contain this (case-insensitive). */
  query?: string;
  /** Only turns of this channel. */
  channel?: string;
}

/** One page of the conversation. */
export interface ConversationPage {
  /** Oldest first. */
  turns: ConversationTurn[];
  /** The cursor of the next older page; absent when the conversation begins here. */
  before?: string;
}

/** The conversation read backwards in pages. */
export interface ConversationHistory {
  /** Rejects with TypeError for a cursor it did not hand out. */
  history(query?: ConversationQuery): Promise<ConversationPage>;
}
