// DAG runs in the store (docs/dags.md "Runs"): the documents `dagrun/<dag>/<runKey>` created if
// absent (so racing nodes and repeated backfills converge on one run), read, changed by a
// read-modify-write under the document's lock (the compare-and-set every claim goes through),
// listed, and pruned to `retainRuns` terminal runs. Every change is measured before it is written:
// one over MAX_RUN_DOCUMENT_BYTES ends the run `too-large` instead (docs/dags.md "Ending a run
// early"), so a run can never be left retrying a write the store will always refuse.
// Must not: decide a task's next state (the planner and the transitions do, inside `change`).
import {
  dagRunNamespace,
  type DocumentChange,
  type StateDocument,
  type StateStore,
} from '../state/index.js';
import type { RunDocument } from './run-document.js';
import { readRunDocument, runDocumentBody, RunDocumentError } from './run-document-wire.js';
import { MAX_RUN_DOCUMENT_BYTES, oversizeEnd, runDocumentBytes } from './run-size.js';

export interface CreatedRun {
  /** False when a run with that key already existed (it is returned as it is). */
  readonly created: boolean;
  readonly doc: RunDocument;
}

/** Create `doc` unless its key exists (the existing run wins). */
export function createRunIfAbsent(store: StateStore, doc: RunDocument): Promise<CreatedRun> {
  return store.updateDocument(
    dagRunNamespace(doc.dag),
    doc.runKey,
    (current): DocumentChange<CreatedRun> =>
      current === undefined
        ? { kind: 'write', body: runDocumentBody(doc), result: { created: true, doc } }
        : { kind: 'keep', result: { created: false, doc: readRunDocument(current.body) } },
  );
}

/** The run, undefined when absent; throws RunDocumentError for a body this build cannot read. */
export async function readRun(
  store: StateStore,
  dag: string,
  runKey: string,
): Promise<RunDocument | undefined> {
  const document = await store.getDocument(dagRunNamespace(dag), runKey);
  return document === undefined ? undefined : readRunDocument(document.body);
}

export interface RunListing {
  /** Readable runs, newest first by createdAt. */
  readonly runs: readonly RunDocument[];
  /** Documents that are not run documents this build reads (left untouched). */
  readonly unreadable: readonly string[];
}

export async function listRuns(store: StateStore, dag: string): Promise<RunListing> {
  const documents = await store.listDocuments(dagRunNamespace(dag));
  const runs: RunDocument[] = [];
  const unreadable: string[] = [];
  for (const document of documents) {
    const doc = tryRead(document);
    if (doc === undefined) unreadable.push(document.key);
    else runs.push(doc);
  }
  runs.sort((a, b) => b.createdAtMs - a.createdAtMs || (a.runKey < b.runKey ? 1 : -1));
  return { runs, unreadable };
}

function tryRead(document: StateDocument): RunDocument | undefined {
  try {
    return readRunDocument(document.body);
  } catch (error) {
    if (error instanceof RunDocumentError) return undefined;
    throw error;
  }
}

/** What a change of a run did. */
export type RunChange<T> =
  /** Written as decided (or nothing to write). */
  | { readonly kind: 'changed'; readonly result: T }
  /** The change was over the size cap: not written; the run was ended `too-large` instead. */
  | { readonly kind: 'too-large'; readonly run: RunDocument };

/**
 * Change the run under its lock: `change` sees the current run (undefined when absent) and
 * returns the new run, or null to write nothing. A new run over `limit` bytes is not written:
 * the current run is ended `too-large` (its time the new run's updatedAtMs) and that is written.
 */
export function changeRun<T>(
  store: StateStore,
  dag: string,
  runKey: string,
  change: (current: RunDocument | undefined) => {
    readonly doc: RunDocument | null;
    readonly result: T;
  },
  limit = MAX_RUN_DOCUMENT_BYTES,
): Promise<RunChange<T>> {
  return store.updateDocument(
    dagRunNamespace(dag),
    runKey,
    (stored): DocumentChange<RunChange<T>> => {
      const current = stored === undefined ? undefined : readRunDocument(stored.body);
      const decided = change(current);
      const changed = { kind: 'changed', result: decided.result } as const;
      if (decided.doc === null) return { kind: 'keep', result: changed };
      const bytes = runDocumentBytes(decided.doc);
      if (bytes <= limit || current === undefined) {
        return { kind: 'write', body: runDocumentBody(decided.doc), result: changed };
      }
      const ended = oversizeEnd(current, bytes, limit, decided.doc.updatedAtMs);
      return {
        kind: 'write',
        body: runDocumentBody(ended),
        result: { kind: 'too-large', run: ended },
      };
    },
  );
}

/**
 * Delete terminal runs beyond the newest `retain` (by createdAt); active runs are never touched.
 * Each deletion re-checks the run under its lock. Resolves to the deleted run keys.
 */
export async function pruneRuns(
  store: StateStore,
  dag: string,
  retain: number,
  runs: readonly RunDocument[],
): Promise<string[]> {
  const terminal = runs.filter((run) => run.state !== 'running');
  const deleted: string[] = [];
  for (const run of terminal.slice(retain)) {
    const gone = await store.updateDocument(
      dagRunNamespace(dag),
      run.runKey,
      (current): DocumentChange<boolean> => {
        const doc = current === undefined ? undefined : tryRead(current);
        return doc !== undefined && doc.state !== 'running'
          ? { kind: 'delete', result: true }
          : { kind: 'keep', result: false };
      },
    );
    if (gone) deleted.push(run.runKey);
  }
  return deleted;
}
