// Splits a byte stream into newline-delimited lines (the WATCH wire format), whatever the chunk boundaries.

/**
 * Feed chunks with `push`, call `end` once the stream is over. Chunks may split a line anywhere,
 * including inside a multi-byte UTF-8 character: the streaming TextDecoder holds incomplete bytes back.
 */
export class LineSplitter {
  private readonly decoder = new TextDecoder("utf-8");
  private buffer = "";
  // Where the newline search resumes, so a huge line arriving in many chunks is scanned once, not O(n^2).
  private scanFrom = 0;

  push(chunk: Uint8Array): string[] {
    this.buffer += this.decoder.decode(chunk, { stream: true });
    return this.drain();
  }

  /** Flushes held-back bytes; returns a last line that had no trailing newline, if any. */
  end(): string[] {
    this.buffer += this.decoder.decode();
    const lines = this.drain();
    const rest = this.buffer;
    this.buffer = "";
    this.scanFrom = 0;
    if (rest.trim() !== "") lines.push(rest);
    return lines;
  }

  private drain(): string[] {
    const lines: string[] = [];
    let start = 0;
    let nl = this.buffer.indexOf("\n", this.scanFrom);
    while (nl !== -1) {
      const line = this.buffer.slice(start, nl);
      if (line.trim() !== "") lines.push(line);
      start = nl + 1;
      nl = this.buffer.indexOf("\n", start);
    }
    if (start > 0) this.buffer = this.buffer.slice(start);
    this.scanFrom = this.buffer.length;
    return lines;
  }
}
