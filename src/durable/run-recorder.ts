// The scheduler's events as background writes (docs/durable-state.md "The run ledger", "In-flight
// records", "Output archival", "Restart-durable counters"): in-flight open/closed records on the
// 0->1 / 1->0 transitions, a ledger row per recorded run, the archived output, and throttled
// counter snapshots, each in the reference's record shape.
// Must not: wait for a write or read the store.
import { replaceOrder, replaceValues } from '../common/index.js';
import type { ResolvedState } from '../config/index.js';
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
 * after it (a prune lists the stream), so a stream stays under INFLIGHT_KEEP + 2 * this.
 */
const INFLIGHT_PRUNE_EVERY = 4;
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
    const live = lives.get(name) ?? 0;
    lives.set(name, live + 1);
    if (live > 0) return;
    // The 0 -> 1 transition: an open in-flight record (the crash-reconciliation anchor).
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
    if (opens % INFLIGHT_PRUNE_EVERY === 1) {
      this.#access.submitPrune('inflight', stream, INFLIGHT_KEEP);
    }
  }

  onRunOutput(event: RunOutputEvent): void {
    this.#archives.get(event.runId)?.archive.add(event.stream, event.line);
  }

  onRunFinished(event: RunFinishedEvent): void {
    const { job } = event;
    const name = job.name;
    this.#closeInflight(name);
    const archived =
      this.#archives.get(event.runId) ??
      (job.archiveOutput
        ? { archive: new OutputArchive(job.saveLimit), secrets: null }
        : undefined);
    this.#archives.delete(event.runId);
    if (!event.recorded) return;
    const prune = this.#appendLedgerRow(name, event.summary);
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
    this.#appendLedgerRow(event.jobName, event.summary);
  }

  /** Append one ledger row (pruned on the first append and every PRUNE_EVERY); true when pruned. */
  #appendLedgerRow(name: string, summary: RunSummary): boolean {
    const appends = (this.#appends.get(name) ?? 0) + 1;
    this.#appends.set(name, appends);
    const prune = appends === 1 || appends % PRUNE_EVERY === 0;
    const keep = this.#settings.maxRunsPerJob;
    this.#access.submit('run-record', runsStream(name), ledgerRowOf(summary));
    if (prune && keep !== null) this.#access.submitPrune('run-record', runsStream(name), keep);
    return prune;
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

  /** The 1 -> 0 transition writes the closed record. */
  #closeInflight(name: string): void {
    const lives = this.#deps.process.live;
    const live = lives.get(name) ?? 0;
    if (live === 0) return;
    if (live > 1) {
      lives.set(name, live - 1);
      return;
    }
    lives.delete(name);
    this.#access.submit(
      'inflight',
      inflightStream(name),
      inflightClosedData(
        this.#deps.host,
        this.#deps.process.token,
        'finished',
        this.#deps.clock.now(),
      ),
    );
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
