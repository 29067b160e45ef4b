// The archived-output shapes of the control API (docs/http-api.md "GET /jobs/{name}/output" and
// "GET /jobs/{name}/runs/{id}/output"): a job's archived runs, newest first, and the header line
// and line objects of one run's output as JSON lines. Declared here, beside every other response
// of the API, so the server (http/routes-output.ts), the dashboard and the CLI read one contract.
// Types only.
import type { RunRecordOutcome } from './runs.js';

/** What an archive says about its run (the stored record's fields, `finished_at` re-rendered). */
export interface ArchiveHeaderWire {
  /** Python isoformat() of the UTC instant, as a run record's `finished_at`. */
  readonly finished_at: string;
  readonly outcome: RunRecordOutcome;
  readonly exit_code: number | null;
  readonly redacted: boolean;
  readonly dropped_lines: number;
}

/** One archived run of `GET /jobs/{name}/output`. */
export interface ArchiveEntryWire extends ArchiveHeaderWire {
  /** The archive's record id in the store (opaque): the `{id}` of its output route. */
  readonly id: string;
  /** How many lines the archive holds. */
  readonly lines: number;
}

/** `GET /jobs/{name}/output`. */
export interface JobArchivesWire {
  readonly name: string;
  /** Newest first. */
  readonly archives: readonly ArchiveEntryWire[];
}

/** One line of `GET /jobs/{name}/runs/{id}/output?format=jsonl` after the header line. */
export interface ArchivedLineWire {
  readonly stream: 'stdout' | 'stderr';
  /** As archived, with its own "\n" (the last line of a stream may have none). */
  readonly line: string;
}
