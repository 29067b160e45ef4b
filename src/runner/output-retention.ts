// Keeps what the reports see of one captured stream: the first floor(saveLimit/2) lines, a ring
// of the last lines, and how many lines fell out of the middle.
import type { CapturedStream } from './types.js';

export class OutputRetention {
  readonly #headLimit: number;
  readonly #tailLimit: number;
  readonly #head: string[] = [];
  readonly #tail: string[] = [];
  /** Index of the oldest tail line once the ring is full. */
  #tailStart = 0;
  #discarded = 0;
  #skippedOverlong = 0;

  constructor(saveLimit: number) {
    const limit = Math.max(0, Math.floor(saveLimit));
    this.#headLimit = Math.floor(limit / 2);
    this.#tailLimit = limit - this.#headLimit;
  }

  add(line: string): void {
    if (this.#head.length < this.#headLimit) {
      this.#head.push(line);
    } else if (this.#tail.length < this.#tailLimit) {
      this.#tail.push(line);
    } else if (this.#tailLimit === 0) {
      this.#discarded++;
    } else {
      this.#tail[this.#tailStart] = line;
      this.#tailStart = (this.#tailStart + 1) % this.#tailLimit;
      this.#discarded++;
    }
  }

  /** An over-long line was dropped: it makes the text incomplete but is not a discarded line. */
  noteOverlongLine(): void {
    this.#skippedOverlong++;
  }

  get discardedLines(): number {
    return this.#discarded;
  }

  text(): string {
    const ordered =
      this.#tailStart === 0
        ? this.#tail
        : [...this.#tail.slice(this.#tailStart), ...this.#tail.slice(0, this.#tailStart)];
    const marker =
      this.#discarded > 0 && ordered.length > 0
        ? `   [.... ${this.#discarded} lines discarded ...]\n`
        : '';
    return this.#head.join('') + marker + ordered.join('');
  }

  result(): CapturedStream {
    return {
      text: this.text(),
      discardedLines: this.#discarded,
      truncated: this.#discarded > 0 || this.#skippedOverlong > 0,
    };
  }
}
