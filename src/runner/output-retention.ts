// Keeps what the reports see of one captured stream: the first floor(saveLimit/2) lines, a ring
// of the last lines, and how many lines fell out of the middle. Bounded in characters too
// (MAX_RETAINED_CHARS, half for the head and half for the tail): saveLimit lines of up to
// maxLineLength bytes each would otherwise be gigabytes. A line that does not fit its half is
// discarded like a line that fell out of the middle.
import type { CapturedStream } from './types.js';

/** Characters kept per captured stream (head and tail together). */
export const MAX_RETAINED_CHARS = 1_048_576;

export class OutputRetention {
  readonly #headLimit: number;
  readonly #tailLimit: number;
  readonly #halfChars: number;
  readonly #head: string[] = [];
  #headChars = 0;
  /** Once a line went past the head, every later line goes to the tail. */
  #headClosed = false;
  /**
   * Tail ring: #tailCount lines from #tailStart (oldest first), wrapping at #tailLimit. It grows
   * as lines come (most runs print a few lines or none; a run starts with no array of saveLimit).
   */
  readonly #tail: (string | undefined)[] = [];
  #tailStart = 0;
  #tailCount = 0;
  #tailChars = 0;
  #discarded = 0;
  #skippedOverlong = 0;

  constructor(saveLimit: number, maxChars = MAX_RETAINED_CHARS) {
    const limit = Math.max(0, Math.floor(saveLimit));
    this.#headLimit = Math.floor(limit / 2);
    this.#tailLimit = limit - this.#headLimit;
    this.#halfChars = Math.floor(maxChars / 2);
  }

  add(line: string): void {
    if (!this.#headClosed) {
      if (this.#head.length < this.#headLimit && this.#headChars + line.length <= this.#halfChars) {
        this.#head.push(line);
        this.#headChars += line.length;
        return;
      }
      this.#headClosed = true;
    }
    if (this.#tailLimit === 0 || line.length > this.#halfChars) {
      this.#discarded++;
      return;
    }
    while (
      this.#tailCount > 0 &&
      (this.#tailCount === this.#tailLimit || this.#tailChars + line.length > this.#halfChars)
    ) {
      this.#dropOldestTail();
    }
    // Until the ring has wrapped once, the next position is the array's end.
    this.#tail[(this.#tailStart + this.#tailCount) % this.#tailLimit] = line;
    this.#tailCount++;
    this.#tailChars += line.length;
  }

  /** An over-long line was dropped: it makes the text incomplete but is not a discarded line. */
  noteOverlongLine(): void {
    this.#skippedOverlong++;
  }

  get discardedLines(): number {
    return this.#discarded;
  }

  text(): string {
    const tail: string[] = [];
    for (let index = 0; index < this.#tailCount; index++) {
      tail.push(this.#tail[(this.#tailStart + index) % this.#tailLimit] ?? '');
    }
    const marker =
      this.#discarded > 0 && tail.length > 0
        ? `   [.... ${this.#discarded} lines discarded ...]\n`
        : '';
    return this.#head.join('') + marker + tail.join('');
  }

  result(): CapturedStream {
    return {
      text: this.text(),
      discardedLines: this.#discarded,
      truncated: this.#discarded > 0 || this.#skippedOverlong > 0,
    };
  }

  #dropOldestTail(): void {
    const oldest = this.#tail[this.#tailStart];
    this.#tail[this.#tailStart] = undefined;
    this.#tailStart = (this.#tailStart + 1) % this.#tailLimit;
    this.#tailCount--;
    this.#tailChars -= oldest?.length ?? 0;
    this.#discarded++;
  }
}
