// Splits a byte stream into newline-delimited lines (the WATCH wire format), whatever the chunk boundaries.

/** A line grew past the splitter's maxLineBytes before its newline arrived. */
export class LineTooLongError extends Error {
  override readonly name = "LineTooLongError";
  constructor(readonly maxLineBytes: number) {
    super(`line longer than ${maxLineBytes} bytes`);
  }
}

/**
 * Feed chunks with `push`, call `end` once the stream is over. Chunks may split a line anywhere, including inside a
 * multi-byte UTF-8 character: the search is for the newline byte, which UTF-8 never uses inside a character, and a
 * line is decoded only once all its bytes are in.
 *
 * Linear in the bytes pushed, however long a line is: each chunk is scanned once, the pieces of an unfinished line
 * are kept as they came and joined once. (Appending to one string and searching it again made a 16 MiB line sent in
 * 4 KiB chunks cost minutes of blocked event loop.) A line is bounded by maxLineBytes: the push that takes it past
 * the limit throws LineTooLongError, so a line that never ends holds at most that much memory.
 */
export class LineSplitter {
  /** Pieces of the line being read, from earlier chunks. */
  private readonly pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(private readonly maxLineBytes = Number.POSITIVE_INFINITY) {}

  push(chunk: Uint8Array): string[] {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const lines: string[] = [];
    let start = 0;
    for (let nl = bytes.indexOf(0x0a); nl !== -1; nl = bytes.indexOf(0x0a, start)) {
      this.reserve(nl - start);
      this.addLine(lines, this.take(bytes.subarray(start, nl)));
      start = nl + 1;
    }
    if (start < bytes.length) {
      this.reserve(bytes.length - start);
      this.pending.push(bytes.subarray(start));
      this.pendingBytes += bytes.length - start;
    }
    return lines;
  }

  /** Returns a last line that had no trailing newline, if any. */
  end(): string[] {
    const lines: string[] = [];
    if (this.pendingBytes > 0) this.addLine(lines, this.take(Buffer.alloc(0)));
    return lines;
  }

  private reserve(bytes: number): void {
    if (this.pendingBytes + bytes > this.maxLineBytes) {
      this.pending.length = 0;
      this.pendingBytes = 0;
      throw new LineTooLongError(this.maxLineBytes);
    }
  }

  /** The pending pieces and last, decoded as one line; the pending pieces are cleared. */
  private take(last: Buffer): string {
    if (this.pending.length === 0) return last.toString("utf8");
    this.pending.push(last);
    const text = Buffer.concat(this.pending, this.pendingBytes + last.length).toString("utf8");
    this.pending.length = 0;
    this.pendingBytes = 0;
    return text;
  }

  private addLine(lines: string[], line: string): void {
    if (line.trim() !== "") lines.push(line);
  }
}
