// Record-before-run for the jobs missed-run catch-up judges (docs/durable-state.md "Missed-run
// catch-up", "In-flight records and crash reconciliation"): a launch of an `onMissed` run-once /
// run-all job waits, bounded by the scheduling-path timeout, until its in-flight open record
// (pid null: the process does not exist yet) has landed, and only then is spawned. A catch-up on
// another node then counts the run even when this node is stopped or killed before the run's
// ledger row reaches the store (docs/clustering.md "Failure modes"). A record that cannot land
// follows onStoreUnavailable: degrade spawns with a warning, fail-closed does not spawn and says
// why. The launcher asks this port only for the jobs it covers; every other launch keeps its
// path and its latency.
// Must not: delay a launch of a job catch-up does not judge, or throw into the launcher.
import type { ResolvedJob } from '../config/index.js';
import type { Logger } from '../logging/index.js';
import type {
  RunStartRecord,
  RunStartRecordPort,
  RunStartRecordRequest,
} from '../scheduler/index.js';
import { SCHEDULING_READ_TIMEOUT_MS } from '../state/index.js';
import type { RunRecorder } from './run-recorder.js';

/** Whether a job's launches wait for their in-flight record: the jobs catch-up backfills. */
export function recordsBeforeRun(job: ResolvedJob): boolean {
  return job.onMissed !== 'skip' && job.schedule.kind === 'cron';
}

export interface RunStartRecordsDeps {
  readonly recorder: RunRecorder;
  readonly logger: Logger;
  readonly onStoreUnavailable: 'degrade' | 'fail-closed';
}

export class RunStartRecords implements RunStartRecordPort {
  readonly #deps: RunStartRecordsDeps;

  constructor(deps: RunStartRecordsDeps) {
    this.#deps = deps;
  }

  covers(job: ResolvedJob): boolean {
    return recordsBeforeRun(job);
  }

  async record({ job, runId, startedAtMs }: RunStartRecordRequest): Promise<RunStartRecord> {
    const { recorder, logger } = this.#deps;
    let landed: boolean;
    try {
      landed = await recorder.openBeforeSpawn(job, runId, startedAtMs);
    } catch {
      landed = false;
    }
    const withdraw = (): void => recorder.withdrawBeforeSpawn(runId);
    if (landed) return { kind: 'run', withdraw };
    const problem = `its in-flight record did not reach the state store before the spawn (a store error, or no answer within ${SCHEDULING_READ_TIMEOUT_MS / 1000} s)`;
    if (this.#deps.onStoreUnavailable === 'degrade') {
      logger.warn(
        `Job ${job.name}: ${problem}; starting it anyway (onStoreUnavailable degrade): should this node stop before the run is recorded, a catch-up elsewhere may run its slot again`,
      );
      return { kind: 'run', withdraw };
    }
    withdraw();
    logger.warn(
      `Job ${job.name} skipped: ${problem}; not starting it (onStoreUnavailable fail-closed)`,
    );
    return { kind: 'skip', reason: 'state-unavailable' };
  }
}
