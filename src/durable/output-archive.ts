// Output archival (docs/durable-state.md "Output archival"): a run's captured lines, in the order
// they were read, each with its stream, kept within the job's saveLimit per stream (the first
// half and the last half of each stream, like the in-memory capture), and the `logs/<job>`
// record the reference writes for them: `{finished_at, outcome, exit_code, redacted,
// dropped_lines, lines: [{stream, line}]}` with each line's own "\n". Scrubbing works on a whole
// stream's text (a private key block spans lines) and is mapped back line by line.
// Must not: hold more than saveLimit lines per stream of one run.
import type { OutputStream } from '../runner/index.js';
import type { RunSummary } from '../scheduler/index.js';
import type { JsonObject } from '../state/index.js';
import { isoAt } from './records.js';

export interface ArchivedLine {
  readonly stream: OutputStream;
  readonly line: string;
}

interface Numbered {
  readonly seq: number;
  readonly line: string;
}

/** One stream's first floor(limit/2) lines and a ring of its last ones. */
class StreamRetention {
  readonly #headLimit: number;
  readonly #tailLimit: number;
  readonly head: Numbered[] = [];
  readonly #tail: Numbered[] = [];
  #tailStart = 0;
  dropped = 0;

  constructor(limit: number) {
    this.#headLimit = Math.floor(limit / 2);
    this.#tailLimit = limit - this.#headLimit;
  }

  add(item: Numbered): void {
    if (this.head.length < this.#headLimit) this.head.push(item);
    else if (this.#tail.length < this.#tailLimit) this.#tail.push(item);
    else if (this.#tailLimit === 0) this.dropped++;
    else {
      this.#tail[this.#tailStart] = item;
      this.#tailStart = (this.#tailStart + 1) % this.#tailLimit;
      this.dropped++;
    }
  }

  kept(): Numbered[] {
    return [
      ...this.head,
      ...this.#tail.slice(this.#tailStart),
      ...this.#tail.slice(0, this.#tailStart),
    ];
  }
}

/** The archived lines of one live run. */
export class OutputArchive {
  readonly #streams: Record<OutputStream, StreamRetention>;
  #seq = 0;

  constructor(saveLimit: number) {
    const limit = Math.max(0, Math.floor(saveLimit));
    this.#streams = { stdout: new StreamRetention(limit), stderr: new StreamRetention(limit) };
  }

  add(stream: OutputStream, line: string): void {
    this.#streams[stream].add({ seq: this.#seq++, line });
  }

  get droppedLines(): number {
    return this.#streams.stdout.dropped + this.#streams.stderr.dropped;
  }

  /** The kept lines in the order they were read. */
  lines(): ArchivedLine[] {
    const tagged = (stream: OutputStream): (Numbered & { stream: OutputStream })[] =>
      this.#streams[stream].kept().map((item) => ({ ...item, stream }));
    return [...tagged('stdout'), ...tagged('stderr')]
      .sort((a, b) => a.seq - b.seq)
      .map(({ stream, line }) => ({ stream, line }));
  }
}

/** A text's lines, each with its own line break (the last one may have none). */
function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/**
 * `lines` with `scrub` applied to each stream's whole text, mapped back to the lines. A scrub that
 * changed the number of lines of a stream (a custom one joining lines) is applied line by line
 * to that stream instead.
 */
export async function scrubLines(
  lines: readonly ArchivedLine[],
  scrub: (text: string) => Promise<string>,
): Promise<ArchivedLine[]> {
  const out = [...lines];
  for (const stream of ['stdout', 'stderr'] as const) {
    const indexes = lines.flatMap((item, index) => (item.stream === stream ? [index] : []));
    if (indexes.length === 0) continue;
    const originals = indexes.map((index) => (lines[index] as ArchivedLine).line);
    let scrubbed = splitLines(await scrub(originals.join('')));
    if (scrubbed.length !== originals.length) {
      scrubbed = [];
      for (const line of originals) scrubbed.push(await scrub(line));
    }
    indexes.forEach((index, position) => {
      out[index] = { stream, line: scrubbed[position] ?? '' };
    });
  }
  return out;
}

/** The `logs/<job>` record of a finished run. */
export function archiveRecordData(
  summary: RunSummary,
  lines: readonly ArchivedLine[],
  droppedLines: number,
  redacted: boolean,
): JsonObject {
  return {
    finished_at: isoAt(summary.finishedAtMs),
    outcome: summary.outcome,
    exit_code: summary.exitCode,
    redacted,
    dropped_lines: droppedLines,
    lines: lines.map(({ stream, line }) => ({ stream, line })),
  };
}
