// XCom over the artifact store (docs/dags.md "XCom"): scope `dagxcom/<dag>/<runId>`, artifact
// name `<taskkey>/<key>`, newest version per name wins. Read here for dynamic mapping (an
// upstream's JSON list, at most MAX_MAPPED_TOTAL_BYTES of it: a larger value is not fetched) and
// for the HTTP listing (values up to 64 KiB inlined, 500 entries).
// Must not: write (tasks push through the job API, `yacron2 xcom push`).
import {
  artifactStream,
  dagXcomScope,
  newestArtifactPerName,
  type StateStore,
} from '../state/index.js';
import { MAX_MAPPED_TOTAL_BYTES, type XcomList } from './expansion.js';
import type { RunDocument } from './run-document.js';

export const XCOM_INLINE_LIMIT_BYTES = 65_536;
export const XCOM_LIST_CAP = 500;

/** The XCom `key` that task `taskKey` pushed in the run, read as a JSON list. */
export async function readXcomList(
  store: StateStore,
  doc: RunDocument,
  taskKey: string,
  key: string,
): Promise<XcomList> {
  const records = await store.list(artifactStream(dagXcomScope(doc.dag, doc.runId)));
  const entry = newestArtifactPerName(records).get(`${taskKey}/${key}`);
  if (entry === undefined) return { kind: 'none' };
  // The record's size is checked before the blob is fetched, the blob's own length after.
  if (entry.size > MAX_MAPPED_TOTAL_BYTES) return { kind: 'too-large', bytes: entry.size };
  const bytes = await store.getBlob(entry.sha256);
  if (bytes === undefined) return { kind: 'none' };
  if (bytes.byteLength > MAX_MAPPED_TOTAL_BYTES) {
    return { kind: 'too-large', bytes: bytes.byteLength };
  }
  try {
    const value: unknown = JSON.parse(Buffer.from(bytes).toString('utf8'));
    return Array.isArray(value) ? { kind: 'items', items: value } : { kind: 'none' };
  } catch {
    return { kind: 'none' };
  }
}

export interface XcomEntry {
  readonly taskkey: string;
  readonly key: string;
  readonly sha256: string;
  readonly size: number;
  readonly at: number;
  readonly value?: string;
  readonly binary?: true;
  readonly oversize?: true;
}

export interface XcomListing {
  readonly entries: readonly XcomEntry[];
  readonly truncated: boolean;
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The run's XCom values by name (sorted), for GET .../xcom. */
export async function listXcom(store: StateStore, doc: RunDocument): Promise<XcomListing> {
  const records = await store.list(artifactStream(dagXcomScope(doc.dag, doc.runId)));
  const newest = [...newestArtifactPerName(records).values()].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  const entries: XcomEntry[] = [];
  for (const artifact of newest.slice(0, XCOM_LIST_CAP)) {
    // Task keys never hold a '/' (ids refuse it); XCom keys may.
    const slash = artifact.name.indexOf('/');
    const base = {
      taskkey: slash < 0 ? artifact.name : artifact.name.slice(0, slash),
      key: slash < 0 ? '' : artifact.name.slice(slash + 1),
      sha256: artifact.sha256,
      size: artifact.size,
      at: artifact.at,
    };
    if (artifact.size > XCOM_INLINE_LIMIT_BYTES) {
      entries.push({ ...base, oversize: true });
      continue;
    }
    const bytes = await store.getBlob(artifact.sha256);
    if (bytes === undefined) {
      entries.push(base);
      continue;
    }
    try {
      entries.push({ ...base, value: STRICT_UTF8.decode(bytes) });
    } catch {
      entries.push({ ...base, binary: true });
    }
  }
  return { entries, truncated: newest.length > XCOM_LIST_CAP };
}
