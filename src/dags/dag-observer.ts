// What the engine tells an observer about the DAG work on this node (docs/metrics.md "DAG
// families" is the one observer): runs it starts and stops advancing, runs that finish under it,
// and task attempts as they start and end. Sensor pokes are not attempts here.
// Must not: let an observer fail the engine (calls are plain, synchronous notifications).
import type { RunOutcome } from '../runner/index.js';
import type { RunState } from './run-document.js';

export interface DagObserver {
  /** This node began advancing a run of `dag`. */
  runAdvanced(dag: string): void;
  /** It stopped (the run finished, went away, is advanced elsewhere, or the engine closed). */
  runReleased(dag: string): void;
  /** A pass of this node moved a run of `dag` from running to `state`. */
  runFinished(dag: string, state: Exclude<RunState, 'running'>): void;
  attemptStarted(dag: string, task: string): void;
  attemptFinished(dag: string, task: string, outcome: RunOutcome): void;
}

export const NO_DAG_OBSERVER: DagObserver = {
  runAdvanced: () => undefined,
  runReleased: () => undefined,
  runFinished: () => undefined,
  attemptStarted: () => undefined,
  attemptFinished: () => undefined,
};
