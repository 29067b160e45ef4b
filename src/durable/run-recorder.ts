// The scheduler's events as background writes (seed "The durable run ledger", "In-flight runs",
// "Output archival", "Restart-durable Prometheus counters"): in-flight open/closed records on the
// 0->1 / 1->0 transitions, a ledger row per recorded run, the archived output, and throttled
// counter snapshots. Must not: wait for a write or read the store.
import { replaceOrder, replaceValues } from '../common/index.js';
import type { ResolvedState } from '../config/index.js';
import type { RunFinishedEvent, RunStartedEvent } from '../scheduler/index.js';
import { fitArchivedText, redactInChunks } from './archive-text.js';
import { ledgerRowOf } from './ledger-rows.js';
import {
  countersStream,
  inflightStream,
  logsStream,
  runsStream,
  type InflightOpen,
} from './records.js';
import type { StoreAccess } from './store-access.js';
import type { DurableDeps } from './types.js';

/** Counter snapshots are written at most this often (plus a final one at shutdown). */
export const COUNTER_SNAPSHOT_INTERVAL_MS = 15_000;
/** In-flight records kept per job after a prune. */
export const INFLIGHT_KEEP = 20;
/** In-flight streams are pruned on the first close and every this many after it. */
const INFLIGHT_PRUNE_EVERY = 10;
/** Ledger and archive prunes happen every this many appends per job (and on the first). */
const PRUNE_EVERY = 20;
/** Counter snapshots kept per host. */
const COUNTER_SNAPSHOTS_KEPT = 3;

export type RecorderDeps = Pick<
  DurableDeps,
  'clock' | 'host' | 'process' | 'counters' | 'redact' | 'secretValues'
>;

export class RunRecorder {
  readonly #deps: RecorderDeps;
  readonly #settings: ResolvedState;
  readonly #access: StoreAccess;
  readonly #appends = new Map<string, number>();
  readonly #closes = new Map<string, number>();
  /** Staged job-API secret values of live runs that archive their output. */
  readonly #runSecrets = new Map<string, Promise<readonly string[]>>();
  #lastCountersMs = Number.NEGATIVE_INFINITY;
  #countersReady = false;

  constructor(deps: RecorderDeps, settings: ResolvedState, access: StoreAccess) {
    this.#deps = deps;
    this.#settings = settings;
    this.#access = access;
  }

  /** Live runs whose staged job-API secret values are held for their archive's scrubbing. */
  get runsHoldingSecrets(): number {
    return this.#runSecrets.size;
  }

  /**
   * Counter snapshots start once seeding was attempted: a snapshot of fresh accumulators written
   * before the seed read would become the newest one and reset the durable counters.
   */
  enableCounterSnapshots(): void {
    this.#countersReady = true;
  }

  onRunStarted(event: RunStartedEvent): void {
    const name = event.job.name;
    if (event.job.archiveOutput && event.job.secrets.length > 0) {
      // Asked at the start: by the run's end the job API has dropped them.
      const values = this.#deps.secretValues?.(event.runId);
      if (values !== undefined) this.#runSecrets.set(event.runId, values);
    }
    const lives = this.#deps.process.live;
    const live = lives.get(name) ?? 0;
    lives.set(name, live + 1);
    if (live > 0) return;
    // The 0 -> 1 transition: an open in-flight record (the crash-reconciliation anchor).
    const open: InflightOpen = {
      kind: 'open',
      host: this.#deps.host,
      token: this.#deps.process.token,
      pid: event.pid,
      startedAtMs: event.startedAtMs,
      digest: event.job.digest,
    };
    this.#access.submit('inflight', inflightStream(name), open);
  }

  onRunFinished(event: RunFinishedEvent): void {
    const { job } = event;
    const name = job.name;
    this.#closeInflight(name);
    // Taken now whatever happens next: a run that is not recorded (replaced) is not archived,
    // and its secret values must not outlive it.
    const secrets = this.#runSecrets.get(event.runId);
    this.#runSecrets.delete(event.runId);
    if (!event.recorded) return;
    const appends = (this.#appends.get(name) ?? 0) + 1;
    this.#appends.set(name, appends);
    const prune = appends === 1 || appends % PRUNE_EVERY === 0;
    const keep = this.#settings.maxRunsPerJob;
    const row = ledgerRowOf(event, this.#deps.host, this.#deps.process.token);
    this.#access.submit('run-record', runsStream(name), row);
    if (prune && keep !== null) this.#access.submitPrune('run-record', runsStream(name), keep);
    if (job.archiveOutput) {
      this.#archive(event, secrets ?? Promise.resolve([]));
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

  /** A snapshot of the counters now (the throttled ones, and the final one at shutdown). */
  writeCounters(): void {
    const counters = this.#deps.counters;
    if (counters === undefined || !this.#countersReady) return;
    const stream = countersStream(this.#deps.host);
    this.#access.submit('counters', stream, {
      host: this.#deps.host,
      atMs: this.#deps.clock.now(),
      snapshot: counters.snapshot(),
    });
    this.#access.submitPrune('counters', stream, COUNTER_SNAPSHOTS_KEPT);
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
    const stream = inflightStream(name);
    this.#access.submit('inflight', stream, {
      kind: 'closed',
      host: this.#deps.host,
      token: this.#deps.process.token,
      reason: 'finished',
    });
    // Pruned every INFLIGHT_PRUNE_EVERY closes, not each: a prune lists the stream. The stream
    // stays under INFLIGHT_KEEP + 2 * INFLIGHT_PRUNE_EVERY records, inside the reconciliation's
    // scan window.
    const closes = (this.#closes.get(name) ?? 0) + 1;
    this.#closes.set(name, closes);
    if (closes % INFLIGHT_PRUNE_EVERY === 1) {
      this.#access.submitPrune('inflight', stream, INFLIGHT_KEEP);
    }
  }

  #archive(event: RunFinishedEvent, staged: Promise<readonly string[]>): void {
    const { job, outcome } = event;
    const { host } = this.#deps;
    const stream = logsStream(job.name);
    this.#access.submitWork('archive', stream, async () => {
      // The run's own staged secrets are scrubbed whatever redactArchivedSecrets says: they
      // never touch the store. The text is cut to the record first, then redacted in chunks.
      const secrets = replaceOrder(await staged.catch(() => []));
      const scrub = async (text: string | undefined): Promise<string | null> => {
        if (text === undefined) return null;
        const scrubbed = replaceValues(fitArchivedText(text), secrets);
        return job.redactArchivedSecrets ? redactInChunks(scrubbed, this.#deps.redact) : scrubbed;
      };
      const stdout = await scrub(outcome.stdout?.text);
      const stderr = await scrub(outcome.stderr?.text);
      return this.#access.store.append(stream, {
        job: job.name,
        host,
        runId: event.runId,
        outcome: event.summary.outcome,
        finishedAtMs: outcome.finishedAtMs,
        stdout,
        stderr,
        truncated: Boolean(outcome.stdout?.truncated || outcome.stderr?.truncated),
        redacted: job.redactArchivedSecrets,
      });
    });
  }
}
