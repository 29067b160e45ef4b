// Decodes the `GET /jobs` body poll after poll without parsing what did not change
// (docs/dashboard.md "Performance"). Between two polls almost every job object is the same text
// except its `scheduled_in` number, which the daemon computes fresh on every render. The body is
// cut into its job objects at each `,{"name":` (the daemon writes `name` first and no
// whitespace; found with the native indexOf, a character loop in script costs as much as
// JSON.parse itself); a job whose text equals the previous poll's at the same position outside
// its `scheduled_in` value reuses the previous object (the same object when the value is equal
// too, a copy with the new value otherwise), and only the others go through JSON.parse.
// Soundness: a piece is reused only if the same bytes parsed before as one whole object, so the
// cut always falls between top-level elements; a piece that does not parse as an object (a cut
// in the wrong place, another writer's layout) sends the whole body to JSON.parse.
// Pure. Must not: keep more than one poll's text, or mutate an object it handed out.
import type { JobWire } from './api-types.js';

const OPEN = '{"name":';
const SEPARATOR = ',{"name":';
const KEY = '"scheduled_in":';

/** One job object's text [start, end) and its top-level `scheduled_in` value [from, to). */
interface Piece {
  readonly start: number;
  readonly end: number;
  /** -1 when the value was not found, or was not the object's own `scheduled_in`. */
  valueFrom: number;
  valueTo: number;
}

/** Cuts `[{"name":…},{"name":…}]` into its objects; null for any other layout. */
export function cutJobs(text: string): Piece[] | null {
  if (text === '[]') return [];
  if (!text.startsWith(`[${OPEN}`) || !text.endsWith('}]')) return null;
  const pieces: Piece[] = [];
  const last = text.length - 1;
  let start = 1;
  for (;;) {
    const next = text.indexOf(SEPARATOR, start + 1);
    const end = next < 0 ? last : next;
    let valueFrom = text.indexOf(KEY, start);
    let valueTo = -1;
    if (valueFrom < 0 || valueFrom >= end) valueFrom = -1;
    else {
      valueFrom += KEY.length;
      valueTo = valueFrom;
      // A number or null: it ends at the member's comma or the object's brace.
      for (let code = text.charCodeAt(valueTo); code !== 44 && code !== 125;) {
        if (++valueTo >= end) {
          valueFrom = -1;
          break;
        }
        code = text.charCodeAt(valueTo);
      }
    }
    pieces.push({ start, end, valueFrom, valueTo });
    if (next < 0) return pieces;
    start = next + 1;
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
    const pieces = cutJobs(text);
    if (pieces !== null) {
      try {
        return this.#incremental(text, pieces);
      } catch (error) {
        if (!(error instanceof NotAPiece) && !(error instanceof SyntaxError)) throw error;
      }
    }
    return this.#full(text);
  }

  #incremental(text: string, pieces: Piece[]): JobWire[] {
    const previous = this.#text;
    const before = this.#pieces;
    const jobs = new Array<JobWire>(pieces.length);
    let parsed = 0;
    for (let index = 0; index < pieces.length; index++) {
      const piece = pieces[index]!;
      const old = before[index];
      const reused =
        old === undefined ? undefined : reuse(text, piece, previous, old, this.#jobs[index]!);
      if (reused !== undefined) {
        jobs[index] = reused;
        continue;
      }
      const job = JSON.parse(text.slice(piece.start, piece.end)) as unknown;
      if (job === null || typeof job !== 'object' || Array.isArray(job)) throw new NotAPiece();
      jobs[index] = job as JobWire;
      // Only the object's own scheduled_in, and only one such key, may be swapped later.
      if (
        piece.valueFrom >= 0 &&
        (!sameValue(text, piece, (job as JobWire).scheduled_in) ||
          text.slice(piece.valueTo, piece.end).includes(KEY))
      )
        piece.valueFrom = -1;
      parsed++;
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

function valueOf(text: string, piece: Piece): unknown {
  try {
    return JSON.parse(text.slice(piece.valueFrom, piece.valueTo));
  } catch {
    return undefined;
  }
}

function sameValue(text: string, piece: Piece, scheduledIn: unknown): boolean {
  return Object.is(valueOf(text, piece), scheduledIn);
}

/** The previous object when the job's text is unchanged outside `scheduled_in`, else undefined. */
function reuse(
  text: string,
  piece: Piece,
  previous: string,
  old: Piece,
  oldJob: JobWire,
): JobWire | undefined {
  if (piece.valueFrom < 0 || old.valueFrom < 0) {
    return piece.end - piece.start === old.end - old.start &&
      text.slice(piece.start, piece.end) === previous.slice(old.start, old.end)
      ? oldJob
      : undefined;
  }
  if (
    piece.valueFrom - piece.start !== old.valueFrom - old.start ||
    piece.end - piece.valueTo !== old.end - old.valueTo ||
    text.slice(piece.start, piece.valueFrom) !== previous.slice(old.start, old.valueFrom) ||
    text.slice(piece.valueTo, piece.end) !== previous.slice(old.valueTo, old.end)
  )
    return undefined;
  const value = text.slice(piece.valueFrom, piece.valueTo);
  if (value === previous.slice(old.valueFrom, old.valueTo)) return oldJob;
  const scheduledIn = valueOf(text, piece);
  if (scheduledIn !== null && typeof scheduledIn !== 'number') return undefined;
  return { ...oldJob, scheduled_in: scheduledIn };
}
