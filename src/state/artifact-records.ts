// The artifact records of the job-facing store (docs/job-state.md "Artifacts"; DAG XCom rides on
// them, docs/dags.md "XCom"): `{at: float epoch s, name, sha256, size}` appended to the stream
// `artifacts/<scope>`, newest record per name wins. Read by the job API's artifact routes and by
// the DAG runs (mapping, the XCom listing). Pure; no I/O.
import type { StateRecord } from './types.js';

/** One artifact version, as recorded. */
export interface ArtifactEntry {
  readonly name: string;
  readonly sha256: string;
  readonly size: number;
  /** Epoch seconds. */
  readonly at: number;
}

/** A record as an artifact version; undefined when it is not one (a foreign or broken record). */
export function artifactEntryOf(record: StateRecord): ArtifactEntry | undefined {
  const { name, sha256, size, at } = record.data;
  if (typeof name !== 'string' || typeof sha256 !== 'string' || typeof size !== 'number') {
    return undefined;
  }
  const fallback = Number.isFinite(record.writtenAtMs) ? record.writtenAtMs / 1000 : 0;
  return { name, sha256, size, at: typeof at === 'number' ? at : fallback };
}

/** The newest readable version of each name (records come newest first, as list() gives them). */
export function newestArtifactPerName(records: readonly StateRecord[]): Map<string, ArtifactEntry> {
  const newest = new Map<string, ArtifactEntry>();
  for (const record of records) {
    const entry = artifactEntryOf(record);
    if (entry !== undefined && !newest.has(entry.name)) newest.set(entry.name, entry);
  }
  return newest;
}
