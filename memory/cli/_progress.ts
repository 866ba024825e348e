/**
 * A download progress bar for the command line: redrawn in place (at most ten times a second)
 * when its stream is a terminal, one plain line per 10 % otherwise (logs, pipes, CI).
 * @module
 */

/** Where the bar is drawn. */
export interface ProgressSink {
  write(text: string): void;
  isTerminal: boolean;
  /** Milliseconds now; default `performance.now`. */
  now?: () => number;
}

/** One bar per file. */
export interface ProgressBar {
  update(bytes: number, total: number): void;
  /** End the line (terminal) or print the last step. */
  done(): void;
}

const WIDTH = 30;

/** A bar labelled `label`, drawing to `sink`. */
export function createProgressBar(label: string, sink: ProgressSink): ProgressBar {
  const now = sink.now ?? (() => performance.now());
  const started = now();
  let drawnAt = -Infinity;
  let step = -1;
  let last = { bytes: 0, total: 0 };
  const draw = () => {
    const { bytes, total } = last;
    const share = total > 0 ? Math.min(1, bytes / total) : 0;
    const seconds = Math.max((now() - started) / 1000, 1e-3);
    const filled = Math.round(share * WIDTH);
    sink.write(
      `\r${label} [${"#".repeat(filled)}${" ".repeat(WIDTH - filled)}] ` +
        `${Math.floor(share * 100)}% ${mib(bytes)}/${mib(total)} MiB ${mib(bytes / seconds)} MiB/s`,
    );
  };
  return {
    update(bytes, total) {
      last = { bytes, total };
      if (sink.isTerminal) {
        if (now() - drawnAt < 100) return;
        drawnAt = now();
        draw();
        return;
      }
      const at = total > 0 ? Math.floor(bytes * 10 / total) : 0;
      if (at <= step) return;
      step = at;
      sink.write(`${label}: ${at * 10}% (${mib(bytes)}/${mib(total)} MiB)\n`);
    },
    done() {
      if (sink.isTerminal) {
        draw();
        sink.write("\n");
      } else if (step < 10 && last.total > 0 && last.bytes >= last.total) {
        sink.write(`${label}: 100% (${mib(last.bytes)}/${mib(last.total)} MiB)\n`);
      }
    },
  };
}

function mib(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(1);
}
