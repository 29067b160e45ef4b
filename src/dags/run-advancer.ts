// The advancer of one DAG run on this node (docs/dags.md "Fleet coordination and crash resume"):
// it holds the run's TTL advance lease `dagadvance/<dag>/<runKey>` (renewed while the run is
// active), and each pass reads the run, judges lost attempts, reads the XCom lists of ready mapped
// tasks, applies the pure pass under the document's lock and launches what it claimed. Passes are
// serialised; a kick during a pass runs one more. An attempt's spawn and end are written back
// under the lock only while the entry is still that attempt (proc + attempt), so a run adopted by
// another node is never overwritten by a stale outcome. A run that ended while attempts of it run
// here (cancelled, or ended too large: docs/dags.md "Ending a run early") has them stopped as a
// job cancel stops a run: SIGTERM to the process group, then SIGKILL after its killTimeout.
// Must not: run a pass without the lease, or start an attempt it did not claim.
import type { Clock, TimerHandle } from '../common/index.js';
import type { Logger } from '../logging/index.js';
import type { ResolvedDag } from '../config/index.js';
import { dagAdvanceLeaseName, type StateStore } from '../state/index.js';
import { isInFlight, lostAttempts, type ProcessLiveness } from './resume-plan.js';
import { applyPass, type LostAttempt } from './run-pass.js';
import type { RunDocument, TaskEntry } from './run-document.js';
import { storedResources } from './run-document-wire.js';
import { runEndReason } from './run-end.js';
import { changeRun, readRun } from './run-store.js';
import {
  startAttempt,
  type LaunchDeps,
  type LaunchableTask,
  type StartedAttempt,
} from './task-launch.js';
import { endedEntry, spawnedEntry } from './task-transitions.js';
import { readXcomList } from './xcom-store.js';
import type { XcomList } from './expansion.js';
import type { DagObserver } from './dag-observer.js';

/** The advance lease's TTL; renewed every RENEW_INTERVAL_MS while the run is active here. */
export const ADVANCE_LEASE_TTL_MS = 30_000;
export const RENEW_INTERVAL_MS = 10_000;

export interface AdvancerDeps extends LaunchDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly host: string;
  readonly processToken: string;
  readonly store: () => StateStore | null;
  readonly dag: (name: string) => ResolvedDag | undefined;
  readonly random: () => number;
  /** Whether `pid` is a live process on this host. */
  readonly isPidAlive: (pid: number) => boolean;
  /** The job API forgets the attempt's token. */
  readonly endRun: (runId: string) => void;
  /** Whether new attempts may start (false once the daemon stops). */
  readonly launching: () => boolean;
  readonly observer: DagObserver;
  /** The run document's byte cap (docs/dags.md "Ending a run early"); MAX_RUN_DOCUMENT_BYTES. */
  readonly runDocumentLimitBytes?: number;
  /** The run is over here (finished, gone, or owned elsewhere): forget this advancer. */
  readonly retire: (advancer: RunAdvancer, finished: RunDocument | null) => void;
}

interface LiveAttempt {
  readonly attempt: number;
  readonly started: StartedAttempt;
  readonly done: Promise<void>;
  /** The run ended: its process is being stopped. */
  stopping: boolean;
}

export class RunAdvancer {
  readonly dagName: string;
  readonly runKey: string;
  readonly #deps: AdvancerDeps;
  readonly #attempts = new Map<string, LiveAttempt>();
  #fence: number | null = null;
  #passing: Promise<void> | null = null;
  #again = false;
  #timer: TimerHandle | null = null;
  #closed = false;

  constructor(deps: AdvancerDeps, dagName: string, runKey: string) {
    this.#deps = deps;
    this.dagName = dagName;
    this.runKey = runKey;
  }

  get holder(): string {
    return `${this.#deps.host}#${this.#deps.processToken}`;
  }

  /** Attempts of this run running in this process. */
  get liveAttempts(): number {
    return this.#attempts.size;
  }

  /** Run a pass now (or right after the current one). */
  kick(): void {
    if (this.#closed) return;
    if (this.#passing !== null) {
      this.#again = true;
      return;
    }
    this.#passing = this.#passLoop().finally(() => {
      this.#passing = null;
    });
  }

  /** Wait for the current pass and every live attempt to settle; no new pass starts. */
  async drain(): Promise<void> {
    this.#timer?.cancel();
    while (this.#passing !== null || this.#attempts.size > 0) {
      await this.#passing;
      await Promise.allSettled([...this.#attempts.values()].map((attempt) => attempt.done));
    }
    this.#closed = true;
  }

  async #passLoop(): Promise<void> {
    do {
      this.#again = false;
      try {
        await this.#pass();
      } catch (error) {
        this.#deps.logger.error(
          { err: error },
          `DAG ${this.dagName} run ${this.runKey}: cannot advance the run`,
        );
        this.#arm(RENEW_INTERVAL_MS);
      }
    } while (this.#again && !this.#closed);
  }

  async #pass(): Promise<void> {
    const deps = this.#deps;
    const store = deps.store();
    const dag = deps.dag(this.dagName);
    if (store === null || dag === undefined) {
      // Never forget a run while an attempt of it runs here: a new advancer would judge it lost.
      if (this.#attempts.size === 0) return this.#retire(null);
      return this.#arm(RENEW_INTERVAL_MS);
    }
    if (!(await this.#holdLease(store))) {
      // Another node advances it; ours (if any) still report under the proc + attempt check.
      if (this.#attempts.size === 0) this.#retire(null);
      else this.#arm(RENEW_INTERVAL_MS);
      return;
    }
    const seen = await readRun(store, this.dagName, this.runKey);
    if (seen === undefined || seen.state !== 'running') return this.#ended(store, seen);
    const lost: LostAttempt[] = lostAttempts(seen, (taskKey, entry) =>
      this.#liveness(taskKey, entry),
    ).map((taskKey) => ({
      taskKey,
      proc: seen.tasks[taskKey]?.proc ?? null,
      attempt: seen.tasks[taskKey]?.attempt ?? 0,
    }));
    const expansions = new Map<string, XcomList>();
    for (let round = 0; round < 2; round += 1) {
      const nowMs = deps.clock.now();
      const change = await changeRun(
        store,
        this.dagName,
        this.runKey,
        (current) => {
          const pass = applyPass(current, {
            dag,
            nowMs,
            claimer: { proc: deps.processToken, host: deps.host },
            lost: round === 0 ? lost : [],
            expansions,
            random: deps.random,
            launching: deps.launching(),
          });
          return { doc: pass.doc, result: { pass, doc: pass.doc ?? current } };
        },
        deps.runDocumentLimitBytes,
      );
      if (change.kind === 'too-large') {
        // Nothing of the refused pass happened (no claim was written).
        this.#endedTooLarge(change.run);
        return this.#ended(store, change.run);
      }
      const result = change.result;
      const written = result.pass.doc;
      if (written !== null && written.state !== 'running')
        deps.observer.runFinished(this.dagName, written.state);
      for (const claim of result.pass.claimed) {
        if (result.doc !== undefined) this.#launch(dag, result.doc, claim.taskKey, claim.entry);
      }
      if (result.doc?.state !== 'running') {
        if (this.#attempts.size === 0 && store === deps.store()) {
          await this.#releaseLease(store);
          return this.#retire(result.doc ?? null);
        }
        return;
      }
      const needed = result.pass.needsExpansion.filter((key) => !expansions.has(key));
      if (needed.length === 0) {
        const wakeAtMs = result.pass.wakeAtMs;
        this.#arm(
          wakeAtMs === null ? RENEW_INTERVAL_MS : Math.min(RENEW_INTERVAL_MS, wakeAtMs - nowMs),
        );
        return;
      }
      for (const taskKey of needed) {
        const task = dag.tasks.find((candidate) => candidate.id === taskKey);
        if (task?.kind !== 'task' || task.expand === null) continue;
        expansions.set(
          taskKey,
          await readXcomList(store, result.doc, task.expand.fromTask, task.expand.key),
        );
      }
    }
    this.#arm(0);
  }

  #endedTooLarge(run: RunDocument): void {
    const reason = run.ended === undefined ? 'ended' : runEndReason(run.ended);
    this.#deps.logger.error(`DAG ${this.dagName} run ${this.runKey}: failed: ${reason}`);
    this.#deps.observer.runFinished(this.dagName, 'failed');
  }

  /**
   * The run ended (or is gone): retire it once no attempt of it runs here; until then stop them
   * (each one's end kicks a pass, and the last one retires the run).
   */
  async #ended(store: StateStore, seen: RunDocument | undefined): Promise<void> {
    if (this.#attempts.size === 0) {
      await this.#releaseLease(store);
      return this.#retire(seen ?? null);
    }
    this.#stopAttempts(seen);
  }

  #stopAttempts(seen: RunDocument | undefined): void {
    for (const [taskKey, live] of this.#attempts) {
      if (live.stopping) continue;
      live.stopping = true;
      this.#deps.logger.info(
        `DAG ${this.dagName} run ${this.runKey}: stopping task ${taskKey} attempt ${live.attempt}: the run ${seen === undefined ? 'is gone' : `ended ${seen.state}`}`,
      );
      live.started.handle
        .cancel('cancelled')
        .catch((error: unknown) =>
          this.#deps.logger.error(
            { err: error },
            `DAG ${this.dagName} run ${this.runKey}: cannot stop task ${taskKey}`,
          ),
        );
    }
  }

  #arm(delayMs: number): void {
    this.#timer?.cancel();
    if (this.#closed) return;
    this.#timer = this.#deps.clock.setTimer(() => this.kick(), Math.max(0, delayMs));
  }

  #retire(finished: RunDocument | null): void {
    this.#timer?.cancel();
    this.#closed = true;
    this.#deps.retire(this, finished);
  }

  async #holdLease(store: StateStore): Promise<boolean> {
    const name = dagAdvanceLeaseName(this.dagName, this.runKey);
    const result =
      this.#fence === null
        ? await store.acquireLease(name, this.holder, ADVANCE_LEASE_TTL_MS)
        : await store.renewLease(name, this.holder, this.#fence, ADVANCE_LEASE_TTL_MS);
    this.#fence = result.acquired ? result.fence : null;
    return result.acquired;
  }

  async #releaseLease(store: StateStore): Promise<void> {
    if (this.#fence === null) return;
    const fence = this.#fence;
    this.#fence = null;
    await store.releaseLease(dagAdvanceLeaseName(this.dagName, this.runKey), this.holder, fence);
  }

  /**
   * Ours while this process watches the attempt; alive while its pid lives on this host (a task
   * that outlived its crashed daemon is waited for, never run beside itself); else gone. A
   * foreign host's attempt is gone once we hold the lease: its owner stopped renewing it.
   */
  #liveness(taskKey: string, entry: TaskEntry): ProcessLiveness {
    if (entry.proc === this.#deps.processToken) {
      return this.#attempts.get(taskKey)?.attempt === entry.attempt ? 'ours' : 'gone';
    }
    if (entry.host === this.#deps.host && entry.pid !== null && this.#deps.isPidAlive(entry.pid)) {
      return 'alive';
    }
    return 'gone';
  }

  #launch(dag: ResolvedDag, doc: RunDocument, taskKey: string, entry: TaskEntry): void {
    const task = dag.tasks.find((candidate) => candidate.id === entry.id);
    if (task === undefined || task.kind === 'approval') return;
    const started = startAttempt(this.#deps, { doc, task, taskKey, entry });
    const done = this.#watch(task, doc, taskKey, entry, started);
    this.#attempts.set(taskKey, { attempt: entry.attempt, started, done, stopping: false });
  }

  async #watch(
    task: LaunchableTask,
    doc: RunDocument,
    taskKey: string,
    entry: TaskEntry,
    started: StartedAttempt,
  ): Promise<void> {
    const deps = this.#deps;
    const counted = task.kind === 'task';
    if (counted) deps.observer.attemptStarted(doc.dag, task.id);
    const mine = (current: TaskEntry | undefined): current is TaskEntry =>
      current !== undefined &&
      isInFlight(current) &&
      current.proc === deps.processToken &&
      current.attempt === entry.attempt;
    try {
      // Through the spawn helper the pid comes a few ms after the launch (null: it failed).
      const pid = await started.pid;
      const store = deps.store();
      if (pid !== null && store !== null) {
        await this.#record(store, taskKey, (current) =>
          mine(current) ? spawnedEntry(current, pid, deps.clock.now()) : null,
        ).catch((error: unknown) =>
          deps.logger.error(
            { err: error },
            `DAG ${doc.dag} run ${doc.runKey}: cannot record the pid of ${taskKey}`,
          ),
        );
      }
      const { outcome, resources } = await started.done;
      if (counted) deps.observer.attemptFinished(doc.dag, task.id, outcome);
      deps.logger.info(
        `DAG ${doc.dag} run ${doc.runKey}: task ${taskKey} attempt ${entry.attempt} ${outcome.kind} (exit code ${outcome.exitCode})`,
      );
      const finalStore = deps.store();
      if (finalStore !== null) {
        await this.#record(finalStore, taskKey, (current) =>
          mine(current)
            ? endedEntry(
                task,
                current,
                { kind: 'outcome', outcome, resources: storedResources(resources) },
                deps.clock.now(),
                deps.random(),
              )
            : null,
        );
      }
    } catch (error) {
      deps.logger.error(
        { err: error },
        `DAG ${doc.dag} run ${doc.runKey}: cannot record the end of ${taskKey}`,
      );
    } finally {
      deps.endRun(started.runId);
      this.#attempts.delete(taskKey);
      this.kick();
    }
  }

  async #record(
    store: StateStore,
    taskKey: string,
    change: (current: TaskEntry | undefined) => TaskEntry | null,
  ): Promise<void> {
    const changed = await changeRun(
      store,
      this.dagName,
      this.runKey,
      (current) => {
        const next = current === undefined ? null : change(current.tasks[taskKey]);
        if (current === undefined || next === null) return { doc: null, result: undefined };
        return {
          doc: {
            ...current,
            updatedAtMs: next.updatedAtMs,
            tasks: { ...current.tasks, [taskKey]: next },
          },
          result: undefined,
        };
      },
      this.#deps.runDocumentLimitBytes,
    );
    // The attempt's end kicks a pass, which stops the rest and retires the run.
    if (changed.kind === 'too-large') this.#endedTooLarge(changed.run);
  }
}
