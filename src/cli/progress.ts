/**
 * A one-line progress indicator on stderr, redrawn in place, only when stderr is a terminal (a
 * log file or a pipe gets no carriage-return noise). No dependency: this is all a CLI needs.
 */
export interface ProgressLine {
  update(text: string): void;
  done(): void;
}

const REDRAW_MS = 200;

export function progressLine(stream: NodeJS.WriteStream = process.stderr): ProgressLine {
  if (!stream.isTTY) return { update: () => {}, done: () => {} };
  let last = 0;
  let shown = false;
  return {
    update(text) {
      const now = Date.now();
      if (now - last < REDRAW_MS) return;
      last = now;
      shown = true;
      stream.write(`\r\x1b[2K${text}`);
    },
    done() {
      if (shown) stream.write('\r\x1b[2K');
    },
  };
}
