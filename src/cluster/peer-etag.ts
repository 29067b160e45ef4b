// The /peer ETag without re-serialising what did not change (docs/performance.md "The /peer
// answer"). Every poll of every peer asks for the tag, and almost all of its input is the job
// summaries, which change only when a job starts, ends or is rescheduled; peerPayloadEtag dumps
// all 512 of them each time (~1.6 ms at 512 jobs). This keeps each summary's hashed text with the
// values it was made from and reuses it while they are equal, so the tag is the same string
// peerPayloadEtag gives for the same payload and instant, at a fraction of the cost.
// Must not: return a tag peerPayloadEtag would not (a peer's cached tag must mean the same
// content: members and agreement ride in it), or keep text for a job no longer advertised.
import {
  dumpPythonJson,
  pythonJsonString,
  RawPythonJson,
  sortByCodePoint,
} from '../common/index.js';
import { anchoredCountdown, etagOf } from './payload-build.js';
import type { JobSummariesWire, JobSummaryWire, PeerPayload } from './peer-payload.js';

/** One summary's hashed text (`"name":{…}`) and the values it was made from. */
interface Fragment {
  readonly summary: JobSummaryWire;
  /** The absolute second the summary's countdown pointed at (what the tag hashes). */
  readonly anchored: number | null;
  readonly text: string;
}

export class PeerEtagMemo {
  #fragments = new Map<string, Fragment>();
  #names: readonly string[] = [];
  #sorted: readonly string[] = [];

  /** peerPayloadEtag(payload, nowMs), reusing the unchanged summaries' text. */
  etag(payload: PeerPayload, nowMs: number): string {
    const summaries = payload.job_summaries;
    const hashed: PeerPayload =
      summaries === null
        ? payload
        : { ...payload, job_summaries: this.#summariesText(summaries, nowMs) as never };
    return etagOf(hashed);
  }

  #summariesText(summaries: JobSummariesWire, nowMs: number): RawPythonJson {
    const next = new Map<string, Fragment>();
    const parts: string[] = [];
    for (const name of this.#sortedNames(Object.keys(summaries))) {
      const summary = summaries[name]!;
      const anchored = anchoredCountdown(summary.scheduled_in, nowMs);
      const known = this.#fragments.get(name);
      const fragment =
        known !== undefined && known.anchored === anchored && sameSummary(known.summary, summary)
          ? known
          : {
              summary,
              anchored,
              text: `${pythonJsonString(name)}:${dumpPythonJson({ ...summary, scheduled_in: anchored })}`,
            };
      next.set(name, fragment);
      parts.push(fragment.text);
    }
    this.#fragments = next;
    return new RawPythonJson(`{${parts.join(',')}}`);
  }

  /** The names in code point order (dumpPythonJson's), re-sorted only when the set changed. */
  #sortedNames(names: string[]): readonly string[] {
    const same =
      names.length === this.#names.length && names.every((name, i) => name === this.#names[i]);
    if (!same) {
      this.#names = names;
      this.#sorted = sortByCodePoint(names);
    }
    return this.#sorted;
  }
}

/** Equal in every field the tag hashes, apart from the countdown. */
function sameSummary(a: JobSummaryWire, b: JobSummaryWire): boolean {
  if (a.running !== b.running || a.enabled !== b.enabled) return false;
  if (a.last === null || b.last === null) return a.last === b.last;
  return (
    a.last.outcome === b.last.outcome &&
    a.last.finished_at === b.last.finished_at &&
    a.last.duration === b.last.duration &&
    a.last.exit_code === b.last.exit_code
  );
}
