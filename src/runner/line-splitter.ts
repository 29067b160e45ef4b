// Splits a byte stream into lines (each keeping its trailing \n) with a per-line byte limit.
// Scans with Buffer.indexOf and only copies when a line spans chunks; never decodes.

export interface LineSplitterSink {
  /** A complete line: its bytes including the trailing \n, or the final unterminated line. */
  line(bytes: Buffer): void;
  /** A line longer than the limit was dropped (called once per such line). */
  overlong(): void;
}

const NEWLINE = 0x0a;

export class LineSplitter {
  readonly #maxLineBytes: number;
  readonly #sink: LineSplitterSink;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** Inside an over-long line already reported: drop bytes up to and including its \n. */
  #skipping = false;

  /** `maxLineBytes` counts the line's bytes without its \n. */
  constructor(maxLineBytes: number, sink: LineSplitterSink) {
    this.#maxLineBytes = maxLineBytes;
    this.#sink = sink;
  }

  push(chunk: Buffer): void {
    let pos = 0;
    while (pos < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, pos);
      if (newline === -1) {
        this.#hold(chunk.subarray(pos));
        return;
      }
      if (this.#skipping) {
        this.#skipping = false;
      } else if (this.#pendingBytes + (newline - pos) > this.#maxLineBytes) {
        this.#sink.overlong();
      } else {
        const tail = chunk.subarray(pos, newline + 1);
        this.#sink.line(
          this.#pending.length === 0 ? tail : Buffer.concat([...this.#pending, tail]),
        );
      }
      this.#pending = [];
      this.#pendingBytes = 0;
      pos = newline + 1;
    }
  }

  /** End of stream: a buffered unterminated line is still a line. */
  end(): void {
    if (!this.#skipping && this.#pendingBytes > 0) {
      this.#sink.line(Buffer.concat(this.#pending));
    }
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#skipping = false;
  }

  #hold(part: Buffer): void {
    if (this.#skipping) return;
    if (this.#pendingBytes + part.length > this.#maxLineBytes) {
      // Drop what we have and the rest of this line, rather than surfacing its remainder as a
      // separate line as the reference does.
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#skipping = true;
      this.#sink.overlong();
      return;
    }
    this.#pending.push(part);
    this.#pendingBytes += part.length;
  }
}
