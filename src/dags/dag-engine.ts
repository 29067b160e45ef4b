// The DAG runs of this daemon (docs/dags.md): creating runs (scheduled, catch-up at boot, manual,
// backfill; create-if-absent by run key), one RunAdvancer per run this node advances, a periodic
// scan that adopts the running runs whose advance lease lapsed (a crashed daemon's, ours before a
// restart), approval decisions, cancels (docs/dags.md "Ending a run early"), and retention.
// Reloads swap the DAG set; runs keep advancing. Schedule timers sleep at most the scheduler's
// MAX_SLEEP_MS and plan again on each wake, as the scheduler's loop does.
// Must not: advance a run itself (RunAdvancer does), decide a task's state (the pure planners),
// or sleep past a clock step (a schedule timer longer than MAX_SLEEP_MS).
import { YacronError, describeError, type Clock, type TimerHandle } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { ResolvedDag } from '../config/index.js';
import type { RunOutput } from '../runner/index.js';
import type { StateStore } from '../state/index.js';
import { AttemptOutputs } from './attempt-outputs.js';
import { NO_DAG_OBSERVER, type DagObserver } from './dag-observer.js';
import { actorOf } from './actor.js';
import { RunAdvancer, type AdvancerDeps } from './run-advancer.js';
import { newRunDocument, type RunDocument, type RunKind } from './run-document.js';
import { endRun, runEndReason } from './run-end.js';
import { manualRunKey, scheduledRunKey } from './run-keys.js';
import { backfillSlots, catchupSlots, dueSlots } from './run-slots.js';
import { changeRun, createRunIfAbsent, listRuns, pruneRuns, type RunChange } from './run-store.js';
import { decidedEntry } from './task-transitions.js';
import { nextFireTime } from '../schedule/index.js';
import { MAX_SLEEP_MS } from '../scheduler/index.js';

/** `by` as given, or YC_ERR_REQUEST_INVALID with the reason it is refused. */
function checkedActor(by: string): string {
  const verdict = actorOf(by);
  if (verdict.kind === 'refused') throw new YacronError('YC_ERR_REQUEST_INVALID', verdict.reason);
  return verdict.by;
}

/** How often the store is scanned for running runs nobody advances. */
export const ADOPT_SCAN_INTERVAL_MS = 15_000;

export interface DagEngineDeps extends Omit<
  AdvancerDeps,
  'dag' | 'retire' | 'launching' | 'store' | 'outputs' | 'observer'
> {
  readonly clock: Clock;
  readonly logger: Logger;
  /** The store once it is open; null before (the HTTP routes then answer 503). */
  readonly store: () => StateStore | null;
  /** Whether this node creates the DAG's scheduled runs now (its clusterPolicy). */
  readonly mayCreateScheduledRuns: (dag: ResolvedDag) => boolean;
  readonly randomBytes: (size: number) => Uint8Array;
  /** Told about runs and attempts (the yacron2_dag_* metrics); none by default. */
  readonly observer?: DagObserver;
}

export type Decision = 'approve' | 'reject';

export class DagEngine {
  readonly #deps: DagEngineDeps;
  readonly #advancerDeps: AdvancerDeps;
  readonly #outputs = new AttemptOutputs();
  #dags = new Map<string, ResolvedDag>();
  readonly #advancers = new Map<string, RunAdvancer>();
  readonly #scheduleTimers = new Map<
    string,
    { readonly text: string; timer: TimerHandle; lastMs: number }
  >();
  #scanTimer: TimerHandle | null = null;
  #started = false;
  #stopping = false;

  constructor(deps: DagEngineDeps, dags: readonly ResolvedDag[]) {
    this.#deps = deps;
    this.#dags = new Map(dags.map((dag) => [dag.name, dag]));
    this.#advancerDeps = {
      ...deps,
      dag: (name) => this.#dags.get(name),
      launching: () => !this.#stopping,
      outputs: this.#outputs,
      observer: deps.observer ?? NO_DAG_OBSERVER,
      retire: (advancer, finished) => this.#retire(advancer, finished),
    };
  }

  /** The configured DAGs in config order. */
  dags(): readonly ResolvedDag[] {
    return [...this.#dags.values()];
  }

  /** The live output of the attempt of `taskKey` running on this node now, or null. */
  taskOutput(dag: string, runKey: string, taskKey: string): RunOutput | null {
    return this.#outputs.running(dag, runKey, taskKey);
  }

  dag(name: string): ResolvedDag {
    const dag = this.#dags.get(name);
    if (dag === undefined)
      throw new YacronError(
        'YC_ERR_DAG_UNKNOWN',
        `Cannot find DAG '${name}': it is not configured`,
      );
    return dag;
  }

  /** The open store; YC_ERR_STATE_UNAVAILABLE while there is none (not opened yet). */
  store(): StateStore {
    const store = this.#deps.store();
    if (store === null)
      throw new YacronError(
        'YC_ERR_STATE_UNAVAILABLE',
        'Cannot reach the DAG runs: the state store is not open yet',
      );
    return store;
  }

  /** A reload: the new DAG set; schedules re-armed; runs keep advancing under the new definitions. */
  configure(dags: readonly ResolvedDag[]): void {
    this.#dags = new Map(dags.map((dag) => [dag.name, dag]));
    if (this.#started) this.#armSchedules(this.#deps.clock.now());
  }

  /** Adopt running runs, catch up missed dates (from `startedAtMs`), arm the schedules. */
  async start(startedAtMs: number): Promise<void> {
    if (this.#stopping) return;
    this.#started = true;
    for (const dag of this.#dags.values()) {
      try {
        await this.#boot(dag, startedAtMs);
      } catch (error) {
        this.#deps.logger.error(
          `DAG ${dag.name}: cannot read its runs at start-up: ${describeError(error)}`,
        );
      }
    }
    this.#armSchedules(startedAtMs);
    this.#armScan();
  }

  async #boot(dag: ResolvedDag, startedAtMs: number): Promise<void> {
    const { runs } = await listRuns(this.store(), dag.name);
    for (const run of runs) if (run.state === 'running') this.#advance(dag.name, run.runKey);
    let newest: number | null = null;
    for (const run of runs) {
      const logicalMs = run.logicalDateMs;
      if (logicalMs !== null) newest = newest === null ? logicalMs : Math.max(newest, logicalMs);
    }
    if (!dag.enabled || !this.#deps.mayCreateScheduledRuns(dag)) return;
    for (const slot of catchupSlots(dag, newest, startedAtMs))
      await this.#create(dag, 'catchup', slot);
  }

  /** A manual run (works on a disabled DAG); resolves to its run key. */
  async trigger(name: string): Promise<string> {
    const dag = this.dag(name);
    const runKey = manualRunKey(this.#deps.randomBytes(6));
    const created = await this.#createDoc(dag, { runKey, logicalDateMs: null, kind: 'manual' });
    return created.runKey;
  }

  /** Runs for every schedule instant in [fromMs, toMs] (at most 100); resolves to the count. */
  async backfill(name: string, fromMs: number, toMs: number): Promise<number> {
    const dag = this.dag(name);
    if (dag.schedule === null)
      throw new YacronError(
        'YC_ERR_DAG_NOT_SCHEDULED',
        `Cannot backfill DAG '${name}': it has no schedule`,
      );
    const slots = backfillSlots(dag.schedule.schedule, fromMs, toMs);
    for (const slot of slots) await this.#create(dag, 'backfill', slot);
    return slots.length;
  }

  /** Approve or reject a waiting gate; resolves to the gate's new state. */
  async decide(
    name: string,
    runKey: string,
    taskKey: string,
    decision: Decision,
    by: string,
  ): Promise<string> {
    const dag = this.dag(name);
    const decider = checkedActor(by);
    const nowMs = this.#deps.clock.now();
    const change = await this.#changeExisting(name, runKey, 'decide on', (current) => {
      const entry = current.tasks[taskKey];
      const task = entry && dag.tasks.find((candidate) => candidate.id === entry.id);
      if (entry === undefined || task === undefined) {
        throw new YacronError(
          'YC_ERR_DAG_TASK_UNKNOWN',
          `Cannot decide on task '${taskKey}' of run '${runKey}': no such task`,
        );
      }
      const next = decidedEntry(task, entry, decision, decider, nowMs);
      if (next === null)
        throw new YacronError(
          'YC_ERR_DAG_NOT_AWAITING',
          `Cannot decide on task '${taskKey}' of run '${runKey}': it is not awaiting approval`,
        );
      return {
        doc: {
          ...current,
          updatedAtMs: next.updatedAtMs,
          tasks: { ...current.tasks, [taskKey]: next },
        },
        result: next.state,
      };
    });
    this.#advance(name, runKey);
    if (change.kind === 'too-large') throw this.#endedTooLarge(name, runKey, change.run);
    return change.result;
  }

  /**
   * Cancel a running run (docs/dags.md "Ending a run early"): every entry not terminal ends, the
   * run fails with `ended: {kind: cancelled, by, at}`, and the node running an attempt of it
   * stops that attempt's process (this one at once; another at its next pass, within
   * RENEW_INTERVAL_MS). Resolves to the ended run.
   */
  async cancel(name: string, runKey: string, by: string): Promise<RunDocument> {
    this.dag(name);
    const canceller = checkedActor(by);
    const atMs = this.#deps.clock.now();
    const change = await this.#changeExisting(name, runKey, 'cancel', (current) => {
      if (current.state !== 'running')
        throw new YacronError(
          'YC_ERR_DAG_RUN_ENDED',
          `Cannot cancel run '${runKey}' of DAG '${name}': it has already ended (${current.state})`,
        );
      const doc = endRun(current, { kind: 'cancelled', by: canceller, atMs });
      return { doc, result: doc };
    });
    const run = change.kind === 'changed' ? change.result : change.run;
    this.#advancerDeps.observer.runFinished(name, 'failed');
    this.#deps.logger.info(`DAG ${name}: run ${runKey} cancelled by ${canceller}`);
    // The pass sees the run ended: it stops the attempts running here and retires the run.
    this.#advance(name, runKey);
    return run;
  }

  /** changeRun on a run that must exist; `verb` words the refusal ("Cannot <verb> run ..."). */
  #changeExisting<T>(
    name: string,
    runKey: string,
    verb: string,
    change: (current: RunDocument) => { readonly doc: RunDocument | null; readonly result: T },
  ): Promise<RunChange<T>> {
    return changeRun(
      this.store(),
      name,
      runKey,
      (current) => {
        if (current === undefined) {
          throw new YacronError(
            'YC_ERR_DAG_RUN_UNKNOWN',
            `Cannot ${verb} run '${runKey}' of DAG '${name}': no such run`,
          );
        }
        return change(current);
      },
      this.#deps.runDocumentLimitBytes,
    );
  }

  #endedTooLarge(name: string, runKey: string, run: RunDocument): YacronError {
    const reason = run.ended === undefined ? 'it ended' : runEndReason(run.ended);
    this.#deps.logger.error(`DAG ${name} run ${runKey}: failed: ${reason}`);
    this.#advancerDeps.observer.runFinished(name, 'failed');
    return new YacronError(
      'YC_ERR_DAG_RUN_ENDED',
      `Cannot change run '${runKey}' of DAG '${name}': ${reason}; the run failed`,
    );
  }

  async #create(
    dag: ResolvedDag,
    kind: Exclude<RunKind, 'manual'>,
    logicalMs: number,
  ): Promise<void> {
    await this.#createDoc(dag, {
      runKey: scheduledRunKey(logicalMs),
      logicalDateMs: logicalMs,
      kind,
    });
  }

  async #createDoc(
    dag: ResolvedDag,
    run: { runKey: string; logicalDateMs: number | null; kind: RunKind },
  ): Promise<RunDocument> {
    const runId = Buffer.from(this.#deps.randomBytes(16)).toString('hex');
    const doc = newRunDocument(dag, { ...run, runId }, this.#deps.clock.now());
    const created = await createRunIfAbsent(this.store(), doc);
    if (created.created) {
      this.#deps.logger.info(`DAG ${dag.name}: created ${run.kind} run ${run.runKey}`);
    }
    if (created.doc.state === 'running') this.#advance(dag.name, run.runKey);
    return created.doc;
  }

  #advance(dagName: string, runKey: string): void {
    if (this.#stopping) return;
    const key = `${dagName}\0${runKey}`;
    let advancer = this.#advancers.get(key);
    if (advancer === undefined) {
      advancer = new RunAdvancer(this.#advancerDeps, dagName, runKey);
      this.#advancers.set(key, advancer);
      this.#advancerDeps.observer.runAdvanced(dagName);
    }
    advancer.kick();
  }

  #retire(advancer: RunAdvancer, finished: RunDocument | null): void {
    const key = `${advancer.dagName}\0${advancer.runKey}`;
    if (this.#advancers.get(key) === advancer) {
      this.#advancers.delete(key);
      this.#advancerDeps.observer.runReleased(advancer.dagName);
    }
    if (finished === null || finished.state === 'running') return;
    this.#deps.logger.info(
      `DAG ${finished.dag}: run ${finished.runKey} finished: ${finished.state}`,
    );
    const dag = this.#dags.get(finished.dag);
    if (dag !== undefined) void this.#prune(dag);
  }

  async #prune(dag: ResolvedDag): Promise<void> {
    try {
      const store = this.store();
      const { runs } = await listRuns(store, dag.name);
      const deleted = await pruneRuns(store, dag.name, dag.retainRuns, runs);
      if (deleted.length > 0)
        this.#deps.logger.info(
          `DAG ${dag.name}: pruned ${deleted.length} old run(s) (retainRuns ${dag.retainRuns})`,
        );
    } catch (error) {
      this.#deps.logger.error(`DAG ${dag.name}: cannot prune old runs: ${describeError(error)}`);
    }
  }

  // ---- schedules --------------------------------------------------------------------------------

  #armSchedules(fromMs: number): void {
    for (const [name, armed] of this.#scheduleTimers) {
      const dag = this.#dags.get(name);
      if (dag?.schedule?.text !== armed.text || !dag.enabled) {
        armed.timer.cancel();
        this.#scheduleTimers.delete(name);
      }
    }
    for (const dag of this.#dags.values()) {
      if (dag.schedule === null || !dag.enabled || this.#scheduleTimers.has(dag.name)) continue;
      this.#armSchedule(dag, fromMs);
    }
  }

  /**
   * Sleep toward the DAG's next instant after `afterMs`, at most the scheduler's MAX_SLEEP_MS
   * (docs/architecture.md "The scheduler core"), so a clock step or a suspend is noticed within
   * it: each wake plans again against the clock then.
   */
  #armSchedule(dag: ResolvedDag, afterMs: number): void {
    const { schedule } = dag;
    if (schedule === null || this.#stopping) return;
    const next = nextFireTime(schedule.schedule, afterMs);
    if (next === null) return;
    const delayMs = Math.min(Math.max(next - this.#deps.clock.now(), 0), MAX_SLEEP_MS);
    const timer = this.#deps.clock.setTimer(() => this.#wake(dag.name, afterMs), delayMs);
    this.#scheduleTimers.set(dag.name, { text: schedule.text, timer, lastMs: afterMs });
  }

  /** A schedule timer woke: fire when the next instant is due now, else sleep again toward it. */
  #wake(name: string, afterMs: number): void {
    const dag = this.#dags.get(name);
    const next = dag?.schedule ? nextFireTime(dag.schedule.schedule, afterMs) : null;
    if (dag?.enabled === true && next !== null && next > this.#deps.clock.now()) {
      this.#scheduleTimers.delete(name);
      this.#armSchedule(dag, afterMs);
      return;
    }
    void this.#fire(name, afterMs);
  }

  async #fire(name: string, afterMs: number): Promise<void> {
    const dag = this.#dags.get(name);
    this.#scheduleTimers.delete(name);
    if (dag === undefined || dag.schedule === null || !dag.enabled) return;
    const nowMs = this.#deps.clock.now();
    try {
      if (this.#deps.mayCreateScheduledRuns(dag)) {
        for (const slot of dueSlots(dag.schedule.schedule, afterMs, nowMs))
          await this.#create(dag, 'scheduled', slot);
      }
    } catch (error) {
      this.#deps.logger.error(
        `DAG ${name}: cannot create its scheduled run: ${describeError(error)}`,
      );
    }
    // Re-read: a reload may have replaced the DAG meanwhile.
    const current = this.#dags.get(name);
    if (current !== undefined && !this.#scheduleTimers.has(name))
      this.#armSchedule(current, Math.max(afterMs, nowMs));
  }

  // ---- adoption ---------------------------------------------------------------------------------

  #armScan(): void {
    if (this.#stopping) return;
    this.#scanTimer = this.#deps.clock.setTimer(() => void this.#scan(), ADOPT_SCAN_INTERVAL_MS);
  }

  async #scan(): Promise<void> {
    try {
      const store = this.#deps.store();
      if (store === null) return;
      for (const dag of this.#dags.values()) {
        const { runs } = await listRuns(store, dag.name);
        for (const run of runs) {
          if (run.state === 'running' && !this.#advancers.has(`${dag.name}\0${run.runKey}`)) {
            this.#advance(dag.name, run.runKey);
          }
        }
      }
    } catch (error) {
      this.#deps.logger.error(`DAGs: cannot scan the runs: ${describeError(error)}`);
    } finally {
      this.#armScan();
    }
  }

  /** Stop creating and launching; wait for the attempts running here (their ends are recorded). */
  async close(): Promise<void> {
    this.#stopping = true;
    this.#scanTimer?.cancel();
    for (const armed of this.#scheduleTimers.values()) armed.timer.cancel();
    this.#scheduleTimers.clear();
    await Promise.all([...this.#advancers.values()].map((advancer) => advancer.drain()));
    for (const advancer of this.#advancers.values())
      this.#advancerDeps.observer.runReleased(advancer.dagName);
    this.#advancers.clear();
  }
}
