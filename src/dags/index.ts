// The dags door (docs/dags.md): the engine that creates and advances DAG runs over the store, and
// the read side the control API renders (run documents, summaries, XCom listings; a run in epoch
// ms inside, its stored body — runDocumentBody — on the wire).
export {
  DagEngine,
  ADOPT_SCAN_INTERVAL_MS,
  type DagEngineDeps,
  type Decision,
} from './dag-engine.js';
export { ADVANCE_LEASE_TTL_MS, RENEW_INTERVAL_MS } from './run-advancer.js';
export {
  countTaskStates,
  type RunDocument,
  type RunEnd,
  type RunKind,
  type RunState,
  type TaskEntry,
  type TaskState,
} from './run-document.js';
export {
  runDocumentBody,
  runTimesBody,
  type RunDocumentWire,
  type RunEndWire,
  type TaskEntryWire,
} from './run-document-wire.js';
export { listRuns, readRun, type RunListing } from './run-store.js';
export { parseLogicalDate } from './run-keys.js';
export { listXcom, type XcomEntry, type XcomListing } from './xcom-store.js';
export { MAX_MAPPED_ITEMS, MAX_MAPPED_ITEM_BYTES, MAX_MAPPED_TOTAL_BYTES } from './expansion.js';
export { MAX_RUN_DOCUMENT_BYTES } from './run-size.js';
export { actorOf, MAX_ACTOR_CHARS, type ActorVerdict } from './actor.js';
export { MAX_INSTANCE_LAUNCHES_PER_PASS } from './advance-plan.js';
export type { DagObserver } from './dag-observer.js';
export type { TaskStatsd } from './task-launch.js';
