// One captured stream of one run (docs/configuration.md "Output capture"): split into lines, decode
// UTF-8 with replacement, scrub the run's known secret values (docs/security.md "Secrets"), echo
// `prefix + line` to the daemon's same stream, publish, retain head/tail.
import type { Readable } from 'node:stream';
import type { Logger } from '../logging/index.js';
import { LineSplitter } from './line-splitter.js';
import { OutputRetention } from './output-retention.js';
import type { CapturedStream, OutputLine, OutputStream } from './types.js';

export interface StreamCaptureOptions {
  readonly jobName: string;
  readonly stream: OutputStream;
  /** Already rendered streamPrefix ('' = none). */
  readonly prefix: string;
  readonly maxLineLength: number;
  readonly saveLimit: number;
  /** The daemon's stream of the same name. */
  readonly destination: NodeJS.WritableStream;
  readonly onOutput: ((line: OutputLine) => void) | undefined;
  /** Applied to each decoded line before the echo, onOutput and the retention. */
  readonly scrubLine: ((line: string) => string) | undefined;
  readonly logger: Logger;
}

export class StreamCapture {
  readonly #options: StreamCaptureOptions;
  readonly #retention: OutputRetention;
  readonly #splitter: LineSplitter;
  /** Echo text gathered while splitting one chunk, written with a single write(). */
  #echo = '';
  #finished = false;
  #onOutputFailed = false;

  constructor(options: StreamCaptureOptions) {
    this.#options = options;
    this.#retention = new OutputRetention(options.saveLimit);
    this.#splitter = new LineSplitter(options.maxLineLength, {
      line: (bytes) => this.#line(bytes),
      overlong: () => {
        this.#retention.noteOverlongLine();
        options.logger.warn(`job ${options.jobName}: ignored a very long line`);
      },
    });
  }

  /** Read `readable` to its end. */
  attach(readable: Readable): void {
    readable.on('data', (chunk: Buffer) => this.push(chunk));
    readable.once('end', () => this.finish());
    readable.on('error', (error: Error) => {
      this.#options.logger.warn(
        { err: error },
        `job ${this.#options.jobName}: error reading ${this.#options.stream}`,
      );
    });
  }

  push(chunk: Buffer): void {
    if (this.#finished) return;
    this.#splitter.push(chunk);
    this.#flushEcho();
  }

  /** End of stream; idempotent. */
  finish(): void {
    if (this.#finished) return;
    this.#splitter.end();
    this.#flushEcho();
    this.#finished = true;
  }

  result(): CapturedStream {
    return this.#retention.result();
  }

  #line(bytes: Buffer): void {
    // toString('utf8') substitutes U+FFFD for invalid sequences. A \n never continues a UTF-8
    // sequence, so decoding line by line equals decoding the stream.
    const decoded = bytes.toString('utf8');
    const line = this.#options.scrubLine === undefined ? decoded : this.#options.scrubLine(decoded);
    this.#echo += this.#options.prefix + line;
    this.#retention.add(line);
    const onOutput = this.#options.onOutput;
    if (onOutput) {
      try {
        onOutput({ stream: this.#options.stream, line });
      } catch (error) {
        if (!this.#onOutputFailed) {
          this.#onOutputFailed = true;
          this.#options.logger.error(
            { err: error },
            `job ${this.#options.jobName}: output listener failed`,
          );
        }
      }
    }
  }

  #flushEcho(): void {
    if (this.#echo === '') return;
    // process.stdout/stderr write synchronously to files, TTYs and pipes on Linux, so this does
    // not queue; the reference flushes every line the same way.
    this.#options.destination.write(this.#echo);
    this.#echo = '';
  }
}
