// Splits a byte stream into text lines (the control API's streamed answers: an archived run's
// JSON lines, a server-sent event stream) without holding more than one line. A line longer than
// the bound is refused, not buffered (docs/cli.md "yacron2 logs").
// Must not: keep more than `maxLineBytes` of a line, or decode a UTF-8 sequence split between
// two chunks as two halves (lines are cut on the byte 0x0A, then decoded whole).

export type SplitResult = { readonly kind: 'ok' } | { readonly kind: 'overflow' };

export class LineSplitter {
  readonly #maxLineBytes: number;
  readonly #onLine: (line: string) => void;
  #pending: Buffer[] = [];
  #pendingBytes = 0;

  constructor(maxLineBytes: number, onLine: (line: string) => void) {
    this.#maxLineBytes = maxLineBytes;
    this.#onLine = onLine;
  }

  /** Feed the next chunk; each complete line goes to `onLine` (without its `\n`). */
  push(chunk: Buffer): SplitResult {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      if (newline < 0) break;
      const piece = chunk.subarray(start, newline);
      if (this.#pendingBytes + piece.byteLength > this.#maxLineBytes) return { kind: 'overflow' };
      const bytes = this.#pending.length === 0 ? piece : Buffer.concat([...this.#pending, piece]);
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#onLine(bytes.toString('utf8'));
      start = newline + 1;
    }
    const rest = chunk.subarray(start);
    if (rest.byteLength > 0) {
      if (this.#pendingBytes + rest.byteLength > this.#maxLineBytes) return { kind: 'overflow' };
      // A copy: the caller may reuse its chunk.
      this.#pending.push(Buffer.from(rest));
      this.#pendingBytes += rest.byteLength;
    }
    return { kind: 'ok' };
  }

  /** At the end of the stream: the text after the last newline, as a last line (if any). */
  finish(): void {
    if (this.#pendingBytes === 0) return;
    const bytes = Buffer.concat(this.#pending);
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#onLine(bytes.toString('utf8'));
  }
}
