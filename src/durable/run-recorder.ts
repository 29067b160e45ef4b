// The scheduler's events as background writes, see docs/durable-state.md "The run ledger",
// "In-flight records and crash reconciliation", "Output archival", "Restart-durable counters": an
// in-flight open record per run start and a closed one on the 1->0 transition (after the last run's
// ledger row), a ledger row per recorded run, the archived output, and throttled counter snapshots,
// each in the reference's record shape.
// The one exception is record-before-run (openBeforeSpawn): the launch of a job catch-up judges
// waits for its open record (run-start-records.ts holds the policy).
// Must not: wait for a write or read the store, except openBeforeSpawn's bounded write.
import { replaceOrder, replaceValues } from '../common/index.js';
import type { ResolvedJob, ResolvedState } from '../config/index.js';
import type {
  RetryAbandonedEvent,
  RunFinishedEvent,
  RunOutputEvent,
  RunStartedEvent,
  RunSummary,
} from '../scheduler/index.js';
import { fitArchivedLines, redactInChunks } from './archive-text.js';
import { ledgerRowOf } from './ledger-rows.js';
import { archiveRecordData, OutputArchive, scrubLines } from './output-archive.js';
import {
  COUNTERS_KEEP,
  countersStream,
  inflightClosedData,
  inflightOpenData,
  inflightStream,
  INFLIGHT_KEEP,
  isoAt,
  logsStream,
  runsStream,
} from './records.js';
import type { StoreAccess } from './store-access.js';
import type { DurableDeps } from './types.js';

/** Counter snapshots are written at most this often (plus a final one at shutdown). */
export const COUNTER_SNAPSHOT_INTERVAL_MS = 15_000;
/**
 * In-flight streams are pruned to INFLIGHT_KEEP on a job's first open and every this many opens
 * after it (a prune lists the stream), so a stream stays under INFLIGHT_KEEP + 3 * this (a run of
 * an onMissed job writes two opens, one before its spawn, and a close may follow). Not
 * before the boot's reconciliation has read the streams, and not while a job's stream holds the
 * open record of a live orphan (up to INFLIGHT_HOLD_MAX_OPENS opens of the job).
 */
const INFLIGHT_PRUNE_EVERY = 4;
/** A held stream is pruned again after this many opens (an orphan that never ends). */
export const INFLIGHT_HOLD_MAX_OPENS = 400;
/** Ledger and archive prunes happen every this many appends per job (and on the first). */
const PRUNE_EVERY = 20;

export type RecorderDeps = Pick<
  DurableDeps,
  'clock' | 'host' | 'process' | 'counters' | 'redact' | 'secretValues'
>;

interface LiveArchive {
  readonly archive: OutputArchive;
  /** The job-API secrets staged for the run, asked at its start; null when it has none. */
  readonly secrets: Promise<readonly string[]> | null;
}

export class RunRecorder {
  readonly #deps: RecorderDeps;
  readonly #settings: ResolvedState;
  readonly #access: StoreAccess;
  readonly #appends = new Map<string, number>();
  readonly #opens = new Map<string, number>();
  /** In-flight prunes wait for the boot's reconciliation to have read the streams. */
  #inflightPrunesHeld = true;
  /** Jobs whose in-flight stream holds a live orphan's open record: opens since it was held. */
  readonly #heldInflight = new Map<string, number>();
  /** The output of live runs that archive it, by run id. */
  readonly #archives = new Map<string, LiveArchive>();
  #lastCountersMs = Number.NEGATIVE_INFINITY;
  #countersReady = false;

  constructor(deps: RecorderDeps, settings: ResolvedState, access: StoreAccess) {
    this.#deps = deps;
    this.#settings = settings;
    this.#access = access;
  }

  /**
   * Counter snapshots start once seeding was attempted: a snapshot of fresh accumulators written
   * before the seed read would become the newest one and reset the durable counters.
   */
  enableCounterSnapshots(): void {
    this.#countersReady = true;
  }

  /** The counters were seeded from the last snapshot (or found none): snapshots may be written. */
  get countersReady(): boolean {
    return this.#countersReady;
  }

  /** The boot's reconciliation read the in-flight streams: they may be pruned from now on. */
  releaseInflightPrunes(): void {
    this.#inflightPrunesHeld = false;
  }

  /** The job's in-flight stream holds a live orphan's open record: keep it (bounded). */
  holdInflight(name: string): void {
    this.#heldInflight.set(name, 0);
  }

  /** The job's orphans were reconciled: its stream is pruned again. */
  releaseInflight(name: string): void {
    this.#heldInflight.delete(name);
  }

  /** Live runs whose staged job-API secret values are held for their archive's scrubbing. */
  get runsHoldingSecrets(): number {
    let holding = 0;
    for (const { secrets } of this.#archives.values()) if (secrets !== null) holding++;
    return holding;
  }

  onRunStarted(event: RunStartedEvent): void {
    const { job } = event;
    const name = job.name;
    if (job.archiveOutput) {
      // Asked at the start: by the run's end the job API has dropped them.
      const secrets = job.secrets.length > 0 ? this.#deps.secretValues?.(event.runId) : undefined;
      this.#archives.set(event.runId, {
        archive: new OutputArchive(job.saveLimit),
        secrets: secrets ?? null,
      });
    }
    const lives = this.#deps.process.live;
    // A run recorded before its spawn counts as live since then.
    if (!this.#deps.process.prespawned.delete(event.runId)) {
      lives.set(name, (lives.get(name) ?? 0) + 1);
    }
    // One open record per run, each with its own pid and start instant (the reference writes one
    // on the 0->1 transition only; its newest-record reading sees an open either way): after a
    // crash, every run that was live is reconciled on its own, overlapping ones included.
    const stream = inflightStream(name);
    this.#access.submit(
      'inflight',
      stream,
      inflightOpenData({
        host: this.#deps.host,
        proc: this.#deps.process.token,
        pid: event.pid,
        startedAtMs: event.startedAtMs,
        jobDigest: job.digest,
      }),
    );
    const opens = (this.#opens.get(name) ?? 0) + 1;
    this.#opens.set(name, opens);
    const held = this.#heldInflight.get(name);
    if (held !== undefined) {
      if (held < INFLIGHT_HOLD_MAX_OPENS) {
        this.#heldInflight.set(name, held + 1);
        return;
      }
      this.#heldInflight.delete(name);
    }
    if (opens % INFLIGHT_PRUNE_EVERY === 1 && !this.#inflightPrunesHeld) {
      this.#access.submitPrune('inflight', stream, INFLIGHT_KEEP);
    }
  }

  /**
   * Record-before-run: the run's open record, with pid null (its process does not exist yet),
   * queued on the in-flight lane and waited for (bounded by the scheduling-path timeout); true
   * once it landed. The run counts as live on this node from now on, so another instance's
   * 1 -> 0 close does not settle it. Its `run:started` then writes the open record with its pid
   * and the same start instant (readers merge the two; the crash reconciliation needs the pid).
   */
  openBeforeSpawn(job: ResolvedJob, runId: string, startedAtMs: number): Promise<boolean> {
    const name = job.name;
    const lives = this.#deps.process.live;
    lives.set(name, (lives.get(name) ?? 0) + 1);
    this.#deps.process.prespawned.set(runId, name);
    return this.#access.writeAndWait(
      'inflight',
      inflightStream(name),
      inflightOpenData({
        host: this.#deps.host,
        proc: this.#deps.process.token,
        pid: null,
        startedAtMs,
        jobDigest: job.digest,
      }),
    );
  }

  /**
   * A launch recorded before its spawn does not happen after all: it is no longer live, and on
   * the 1 -> 0 transition the closed record follows on the lane (after the open, landed or not).
   * Idempotent.
   */
  withdrawBeforeSpawn(runId: string): void {
    const name = this.#deps.process.prespawned.get(runId);
    if (name === undefined) return;
    this.#deps.process.prespawned.delete(runId);
    if (this.#endInstance(name)) this.#closeInflight(name, null);
  }

  onRunOutput(event: RunOutputEvent): void {
    this.#archives.get(event.runId)?.archive.add(event.stream, event.line);
  }

  onRunFinished(event: RunFinishedEvent): void {
    const { job } = event;
    const name = job.name;
    const last = this.#endInstance(name);
    const archived =
      this.#archives.get(event.runId) ??
      (job.archiveOutput
        ? { archive: new OutputArchive(job.saveLimit), secrets: null }
        : undefined);
    this.#archives.delete(event.runId);
    if (!event.recorded) {
      if (last) this.#closeInflight(name, null);
      return;
    }
    // The last instance's row goes on the in-flight lane, its closed record after it once it
    // landed: a crash between the two leaves the open record, and the run is reconciled, never
    // lost (a close without its row would settle it).
    const lane = last ? inflightStream(name) : runsStream(name);
    const { landed, prune } = this.#appendLedgerRow(name, event.summary, lane);
    if (last) this.#closeInflight(name, landed);
    const keep = this.#settings.maxRunsPerJob;
    if (archived !== undefined) {
      this.#archive(event, archived);
      if (prune && keep !== null) this.#access.submitPrune('archive', logsStream(name), keep);
    }
    if (this.#countersReady) {
      const nowMs = this.#deps.clock.monotonic();
      if (nowMs - this.#lastCountersMs >= COUNTER_SNAPSHOT_INTERVAL_MS) {
        this.#lastCountersMs = nowMs;
        this.writeCounters();
      }
    }
  }

  /**
   * A due retry the cluster abandoned (ownership moved to another node): its `cancelled` record
   * goes to the ledger like any run's, so `GET /jobs/{name}/runs` says the same after a restart.
   */
  onRetryAbandoned(event: RetryAbandonedEvent): void {
    this.#appendLedgerRow(event.jobName, event.summary, runsStream(event.jobName));
  }

  /**
   * Append one ledger row on `lane` (pruned on the first append and every PRUNE_EVERY): whether
   * it landed, and whether this append pruned.
   */
  #appendLedgerRow(
    name: string,
    summary: RunSummary,
    lane: string,
  ): { readonly landed: Promise<boolean>; readonly prune: boolean } {
    const appends = (this.#appends.get(name) ?? 0) + 1;
    this.#appends.set(name, appends);
    const prune = appends === 1 || appends % PRUNE_EVERY === 0;
    const keep = this.#settings.maxRunsPerJob;
    const stream = runsStream(name);
    const landed = this.#access.appendInLane('run-record', lane, stream, ledgerRowOf(summary));
    // Pruned after it, on its lane.
    if (prune && keep !== null) {
      this.#access.submitWork('run-record', lane, () => this.#access.store.prune(stream, keep));
    }
    return { landed, prune };
  }

  /** A snapshot of the counters now (the throttled ones, and the final one at shutdown). */
  writeCounters(): void {
    const counters = this.#deps.counters;
    if (counters === undefined || !this.#countersReady) return;
    const stream = countersStream(this.#deps.host);
    this.#access.submit('counters', stream, {
      ...counters.snapshot(),
      at: isoAt(this.#deps.clock.now()),
    });
    this.#access.submitPrune('counters', stream, COUNTERS_KEEP);
  }

  /** One live instance of the job ended: true on the 1 -> 0 transition. */
  #endInstance(name: string): boolean {
    const lives = this.#deps.process.live;
    const live = lives.get(name) ?? 0;
    if (live === 0) return false;
    if (live > 1) {
      lives.set(name, live - 1);
      return false;
    }
    lives.delete(name);
    return true;
  }

  /**
   * The 1 -> 0 transition's closed record, on the in-flight lane after the last run's ledger row
   * (`rowLanded`; null for a run that is not recorded), and only once that row landed.
   */
  #closeInflight(name: string, rowLanded: Promise<boolean> | null): void {
    const stream = inflightStream(name);
    const closed = inflightClosedData(
      this.#deps.host,
      this.#deps.process.token,
      'finished',
      this.#deps.clock.now(),
    );
    this.#access.submitWork('inflight', stream, async () => {
      if (rowLanded !== null && !(await rowLanded)) return;
      await this.#access.store.append(stream, closed);
    });
  }

  #archive(event: RunFinishedEvent, { archive, secrets }: LiveArchive): void {
    const { job, summary } = event;
    // Cut to what one record holds first: no time goes into redacting lines that are not kept.
    const fitted = fitArchivedLines(archive.lines());
    const dropped = archive.droppedLines + fitted.cut;
    this.#access.submitWork('archive', logsStream(job.name), async () => {
      // The run's own staged secrets are scrubbed whatever redactArchivedSecrets says: they
      // never touch the store.
      const values = replaceOrder(await (secrets ?? Promise.resolve([])).catch(() => []));
      const scrub = async (text: string): Promise<string> => {
        const scrubbed = replaceValues(text, values);
        return job.redactArchivedSecrets ? redactInChunks(scrubbed, this.#deps.redact) : scrubbed;
      };
      const record = archiveRecordData(
        summary,
        await scrubLines(fitted.lines, scrub),
        dropped,
        job.redactArchivedSecrets,
      );
      return this.#access.store.append(logsStream(job.name), record);
    });
  }
}
