// The browser run ledger (docs/dashboard.md "Run ledger, notifications and cues"): while the
// `ledger` preference is on, each job snapshot's finished runs are recorded (model/run-ledger.ts)
// and stored in IndexedDB (ledger-db.ts); on load, or when turned on, the stored rows are read
// back first, so the history survives a reload. Each job's figures and `slow` verdict
// (model/ledger-baseline.ts) are recomputed for the jobs a change touched. The table, the
// History tab and the settings subscribe to its changes.
// Must not: send a row to the daemon; record before the stored rows are read back (a run would
// look new and the caps would count wrong).
import type { Clock } from '../../../common/clock.js';
import { ledgerStats, type LedgerStats } from '../../model/ledger-baseline.js';
import {
  LedgerRuns,
  parseLedgerRun,
  type LedgerChange,
  type LedgerRun,
} from '../../model/run-ledger.js';
import type { PrefsStore } from '../prefs.js';
import type { AppStore } from '../store.js';
import type { LedgerDb } from './ledger-db.js';

export type LedgerState = 'off' | 'loading' | 'on';

export interface LedgerSummary {
  readonly runs: number;
  readonly jobs: number;
  readonly bytes: number;
  /** False when IndexedDB is unavailable: the rows last until the page is closed. */
  readonly stored: boolean;
}

export class BrowserLedger {
  readonly #store: AppStore;
  readonly #clock: Clock;
  readonly #openDb: () => Promise<LedgerDb | null>;
  readonly #runs = new LedgerRuns();
  readonly #stats = new Map<string, LedgerStats>();
  readonly #listeners = new Set<() => void>();
  #db: Promise<LedgerDb | null> | null = null;
  #stored = false;
  #state: LedgerState = 'off';
  /** Bumped on every turn on/off, so a load that finishes after a turn-off is dropped. */
  #generation = 0;
  /** The writes not yet committed, in order. */
  #writes: Promise<void> = Promise.resolve();

  constructor(
    store: AppStore,
    prefs: PrefsStore,
    clock: Clock,
    openDb: () => Promise<LedgerDb | null>,
  ) {
    this.#store = store;
    this.#clock = clock;
    this.#openDb = openDb;
    store.on('snapshot', () => this.#record());
    prefs.subscribe((next) => this.#follow(next.ledger));
    this.#follow(prefs.value.ledger);
  }

  get state(): LedgerState {
    return this.#state;
  }

  summary(): LedgerSummary {
    return {
      runs: this.#runs.count,
      jobs: this.#runs.jobCount,
      bytes: this.#runs.bytes,
      stored: this.#stored,
    };
  }

  /** A job's figures; null while the ledger is off or holds none of its runs. */
  statsOf(job: string): LedgerStats | null {
    return this.#state === 'on' ? (this.#stats.get(job) ?? null) : null;
  }

  /** The latest run's ratio to the median when the job's latest run is slow, else null. */
  slowRatio(job: string): number | null {
    const stats = this.statsOf(job);
    return stats?.slow === true && stats.latest !== null ? stats.latest.ratio : null;
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Resolves when every write issued so far has ended. */
  settled(): Promise<void> {
    return this.#writes;
  }

  /** The export file's text (JSON). */
  exportJson(): string {
    return JSON.stringify(this.#runs.export(new Date(this.#clock.now()).toISOString()), null, 2);
  }

  /** Deletes every row, here and in storage. */
  async purge(): Promise<void> {
    this.#runs.clear();
    this.#stats.clear();
    this.#emit();
    const db = await this.#database();
    this.#writes = this.#writes.then(() => db?.clear());
    await this.#writes;
  }

  #follow(on: boolean): void {
    if (on === (this.#state !== 'off')) return;
    this.#generation += 1;
    this.#runs.clear();
    this.#stats.clear();
    if (!on) {
      this.#state = 'off';
      this.#emit();
      return;
    }
    this.#state = 'loading';
    this.#emit();
    void this.#load(this.#generation);
  }

  #database(): Promise<LedgerDb | null> {
    this.#db ??= this.#openDb().then((db) => {
      this.#stored = db !== null;
      return db;
    });
    return this.#db;
  }

  async #load(generation: number): Promise<void> {
    const db = await this.#database();
    const rows = db === null ? [] : await db.loadAll();
    if (generation !== this.#generation) return;
    const parsed: LedgerRun[] = [];
    for (const row of rows) {
      const run = parseLedgerRun(row);
      if (run !== null) parsed.push(run);
    }
    const change = this.#runs.hydrate(parsed);
    this.#state = 'on';
    for (const job of this.#runs.jobs()) this.#stats.set(job, ledgerStats(this.#runs.runsOf(job)));
    this.#persist(change);
    this.#emit();
    this.#record();
  }

  #record(): void {
    const snapshot = this.#store.snapshot;
    if (this.#state !== 'on' || snapshot === null) return;
    const change = this.#runs.record(snapshot.rows.map((row) => row.job));
    if (change.added.length === 0 && change.dropped.length === 0) return;
    const touched = new Set(change.added.map((run) => run.job));
    for (const run of change.dropped) touched.add(run.job);
    for (const job of touched) {
      const runs = this.#runs.runsOf(job);
      if (runs.length === 0) this.#stats.delete(job);
      else this.#stats.set(job, ledgerStats(runs));
    }
    this.#persist(change);
    this.#emit();
  }

  #persist(change: LedgerChange): void {
    if (change.added.length === 0 && change.dropped.length === 0) return;
    this.#writes = this.#writes.then(async () => {
      const db = await this.#database();
      await db?.write(
        change.added,
        change.dropped.map((run) => run.id),
      );
    });
  }

  #emit(): void {
    for (const listener of this.#listeners) listener();
  }
}
