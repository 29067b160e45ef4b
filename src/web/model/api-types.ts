// The wire shapes the dashboard reads (docs/http-api.md "Routes"): the control API's response
// bodies as the server declares and renders them (src/http/wire, one source of truth), under the
// names the dashboard uses. Types only.
import type { RunRecord } from '../../http/wire/index.js';

export type {
  ArchivedLineWire,
  ArchiveEntryWire,
  ArchiveHeaderWire,
  JobArchivesWire,
  JobResourcesWire,
  JobRuns,
  JobSetIdWire,
  JobWire,
  NodeHistoryWire,
  NodeWire,
  RunRecord,
  RunStats,
} from '../../http/wire/index.js';
export type {
  NodeResourcesWire as NodeResources,
  RunningResourcesWire as RunningResources,
} from '../../http/wire/index.js';
export type RunOutcome = RunRecord['outcome'];
