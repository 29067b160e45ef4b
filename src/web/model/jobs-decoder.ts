// Decodes the `GET /jobs` body poll after poll without parsing what did not change
// (docs/dashboard.md "Performance"). Between two polls almost every job object is the same text
// except its `scheduled_in` number, which the daemon computes fresh on every render. The body is
// walked job by job, each compared with the previous poll's job at the same position: a job
// whose text is the same outside its `scheduled_in` value reuses the previous object (the same
// object when the value is equal too, a copy with the new value otherwise), and its end is known
// from the previous text's, so the body is read once, by comparisons. A job that differs is cut
// at the next `,{"name":` (the daemon writes `name` first and no whitespace; found with the
// native indexOf, a character loop in script costs as much as JSON.parse itself) and goes
// through JSON.parse.
// Soundness: a piece is reused only if the same bytes, but for a number or null in place of
// another, parsed before as one whole object, and it is followed by the next `,{"name":` or by
// the closing bracket, so every cut falls between top-level elements; a piece that does not
// parse as an object (a cut in the wrong place, another writer's layout) sends the whole body to
// JSON.parse.
// Pure. Must not: keep more than one poll's text, or mutate an object it handed out.
import type { JobWire } from './api-types.js';

const OPEN = '{"name":';
const SEPARATOR = ',{"name":';
const KEY = '"scheduled_in":';
const COMMA = 44;
const CLOSE_BRACE = 125;

/** One job object's text [start, end) and its top-level `scheduled_in` value [from, to). */
export interface Piece {
  readonly start: number;
  readonly end: number;
  /** -1 when the value was not found, or was not the object's own `scheduled_in`. */
  valueFrom: number;
  valueTo: number;
}

/** Where a number or null starting at `from` ends (its member's comma or its object's brace). */
function valueEnd(text: string, from: number, limit: number): number {
  for (let at = from; at < limit; at++) {
    const code = text.charCodeAt(at);
    if (code === COMMA || code === CLOSE_BRACE) return at;
  }
  return -1;
}

/**
 * Cuts the body `[{"name":…},{"name":…}]` at each `,{"name":`, one piece at a time. The next
 * `scheduled_in` key is searched once and kept until a piece passes it, so a body whose jobs
 * have none costs one scan, not one per job.
 */
export class Cutter {
  readonly #text: string;
  readonly #last: number;
  /** The next `scheduled_in` key at or after the last piece's start; -1 = none left. */
  #key = -2;

  constructor(text: string) {
    this.#text = text;
    this.#last = text.length - 1;
  }

  /** The piece that starts at `start`, up to the next separator or the closing bracket. */
  cut(start: number): Piece {
    const text = this.#text;
    const next = text.indexOf(SEPARATOR, start + 1);
    const end = next < 0 ? this.#last : next;
    if (this.#key !== -1 && this.#key < start) this.#key = text.indexOf(KEY, start);
    const key = this.#key;
    const valueFrom = key + KEY.length;
    const valueTo = key < 0 || key >= end ? -1 : valueEnd(text, valueFrom, end);
    return valueTo < 0
      ? { start, end, valueFrom: -1, valueTo: -1 }
      : { start, end, valueFrom, valueTo };
  }
}

export interface DecodeStats {
  /** Job objects parsed this poll (all of them after a full parse). */
  readonly parsed: number;
  /** Job objects taken from the previous poll (identical or with a new `scheduled_in`). */
  readonly reused: number;
}

/** Thrown inside decode when a piece is no object: the caller parses the body whole. */
class NotAPiece extends Error {}

export class JobsDecoder {
  #text = '';
  #pieces: Piece[] = [];
  #jobs: JobWire[] = [];
  last: DecodeStats = { parsed: 0, reused: 0 };

  /** The jobs of a `/jobs` body; throws like JSON.parse on bad JSON or a body that is no list. */
  decode(text: string): JobWire[] {
    if (text === '[]') {
      this.#remember(text, [], [], { parsed: 0, reused: 0 });
      return [];
    }
    if (text.startsWith(`[${OPEN}`) && text.endsWith('}]')) {
      try {
        return this.#walk(text);
      } catch (error) {
        if (!(error instanceof NotAPiece) && !(error instanceof SyntaxError)) throw error;
      }
    }
    return this.#full(text);
  }

  #walk(text: string): JobWire[] {
    const last = text.length - 1;
    const cutter = new Cutter(text);
    const previous = this.#text;
    const before = this.#pieces;
    const pieces: Piece[] = [];
    const jobs: JobWire[] = [];
    let parsed = 0;
    for (let start = 1; ;) {
      const index = pieces.length;
      const old = before[index];
      let piece = old === undefined ? null : follow(text, start, previous, old);
      let job = piece === null ? undefined : reuse(text, piece, previous, old!, this.#jobs[index]!);
      if (piece === null || job === undefined) {
        piece = cutter.cut(start);
        job = parsePiece(text, piece);
        parsed++;
      }
      pieces.push(piece);
      jobs.push(job);
      if (piece.end === last) break;
      start = piece.end + 1;
    }
    this.#remember(text, pieces, jobs, { parsed, reused: jobs.length - parsed });
    return jobs;
  }

  #full(text: string): JobWire[] {
    const jobs = JSON.parse(text) as unknown;
    if (!Array.isArray(jobs)) throw new Error('GET /jobs did not answer a list');
    // Nothing to compare the next body with: it is parsed whole too, then pieces resume.
    this.#remember('', [], [], { parsed: jobs.length, reused: 0 });
    return jobs as JobWire[];
  }

  #remember(text: string, pieces: Piece[], jobs: JobWire[], stats: DecodeStats): void {
    this.#text = text;
    this.#pieces = pieces;
    this.#jobs = jobs;
    this.last = stats;
  }
}

/** Parses a piece cut at separators; forgets its value's place unless it is the job's own. */
function parsePiece(text: string, piece: Piece): JobWire {
  const job = JSON.parse(text.slice(piece.start, piece.end)) as unknown;
  if (job === null || typeof job !== 'object' || Array.isArray(job)) throw new NotAPiece();
  // Only the object's own scheduled_in, and only one such key, may be swapped later.
  if (
    piece.valueFrom >= 0 &&
    (!Object.is(
      valueOf(text.slice(piece.valueFrom, piece.valueTo)),
      (job as JobWire).scheduled_in,
    ) ||
      text.slice(piece.valueTo, piece.end).includes(KEY))
  )
    piece.valueFrom = -1;
  return job as JobWire;
}

/**
 * The piece at `start` when the text there repeats the previous poll's piece `old` outside its
 * value and ends where a job ends (a separator or the closing bracket); else null.
 */
function follow(text: string, start: number, previous: string, old: Piece): Piece | null {
  if (old.valueFrom < 0) {
    const end = start + (old.end - old.start);
    return endsJob(text, end) && text.slice(start, end) === previous.slice(old.start, old.end)
      ? { start, end, valueFrom: -1, valueTo: -1 }
      : null;
  }
  const valueFrom = start + (old.valueFrom - old.start);
  if (text.slice(start, valueFrom) !== previous.slice(old.start, old.valueFrom)) return null;
  const valueTo = valueEnd(text, valueFrom, text.length);
  if (valueTo < 0) return null;
  const end = valueTo + (old.end - old.valueTo);
  return endsJob(text, end) && text.slice(valueTo, end) === previous.slice(old.valueTo, old.end)
    ? { start, end, valueFrom, valueTo }
    : null;
}

/** Whether a job may end at `end`: the next one's separator or the list's closing bracket. */
function endsJob(text: string, end: number): boolean {
  return end === text.length - 1 || text.startsWith(SEPARATOR, end);
}

/** A JSON number's text (what `Number` reads exactly as JSON.parse does). */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** The `scheduled_in` a value's text stands for: a number or null; undefined for anything else. */
function valueOf(value: string): number | null | undefined {
  if (value === 'null') return null;
  return JSON_NUMBER.test(value) ? Number(value) : undefined;
}

/** The previous object, or a copy with the new `scheduled_in`; undefined when that is no number. */
function reuse(
  text: string,
  piece: Piece,
  previous: string,
  old: Piece,
  oldJob: JobWire,
): JobWire | undefined {
  if (piece.valueFrom < 0) return oldJob;
  const value = text.slice(piece.valueFrom, piece.valueTo);
  if (value === previous.slice(old.valueFrom, old.valueTo)) return oldJob;
  const scheduledIn = valueOf(value);
  return scheduledIn === undefined ? undefined : { ...oldJob, scheduled_in: scheduledIn };
}
