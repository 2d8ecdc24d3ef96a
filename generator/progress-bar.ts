// A one-line progress bar on stderr, only when stderr is a terminal and the run is big enough to be worth watching.
export const progressThreshold = 5;

export interface ProgressBar {
  update(done: number, total: number): void;
  /** Clears the line, so the summary that follows starts clean. */
  done(): void;
}

export function progressBar(stream: NodeJS.WriteStream = process.stderr): ProgressBar | undefined {
  if (!stream.isTTY) return undefined;
  let last = -1;
  let drawn = false;
  return {
    update(done, total) {
      const width = 30;
      const filled = Math.round((done / total) * width);
      // Redraw only when the bar moves: a corpus run calls this hundreds of times.
      if (filled === last && done !== total) return;
      last = filled;
      drawn = true;
      stream.write(`\r\x1b[2Kcrdgen [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total}`);
    },
    done() {
      if (drawn) stream.write("\r\x1b[2K");
    },
  };
}
