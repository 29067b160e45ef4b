// One advance pass over a run as a pure function of the current document (docs/dags.md "Fleet
// coordination and crash resume"): it runs inside the document's lock, so every claim is a
// compare-and-set against what is stored now. It settles the lost attempts the advancer found,
// applies the expansions it read, then plans and applies until nothing changes: settles cascade,
// approval gates start waiting, ready entries are claimed, a finished run is closed.
// Must not: start processes or read the store (the advancer does, with what this returns).
import type { ResolvedDag, ResolvedDagTask } from '../config/index.js';
import { MAX_INSTANCE_LAUNCHES_PER_PASS, planAdvance } from './advance-plan.js';
import { expandPlaceholder, type XcomList } from './expansion.js';
import { isInFlight } from './resume-plan.js';
import type { RunDocument, TaskEntry } from './run-document.js';
import {
  awaitingEntry,
  claimEntry,
  endedEntry,
  settledEntry,
  type Claimer,
} from './task-transitions.js';

/** An attempt the advancer found lost, as it saw it (the pass acts only if it is still so). */
export interface LostAttempt {
  readonly taskKey: string;
  readonly proc: string | null;
  readonly attempt: number;
}

export interface PassInput {
  readonly dag: ResolvedDag;
  readonly nowMs: number;
  readonly claimer: Claimer;
  readonly lost: readonly LostAttempt[];
  readonly expansions: ReadonlyMap<string, XcomList>;
  /** Uniform draws in [0, 1) (sensor poke jitter). */
  readonly random: () => number;
  /** Claim nothing (the daemon is stopping): settles and roll-up still apply. */
  readonly launching: boolean;
}

export interface PassResult {
  /** The document to write, or null when nothing changed. */
  readonly doc: RunDocument | null;
  /** Entries claimed in this pass, to be launched by the caller. */
  readonly claimed: readonly { readonly taskKey: string; readonly entry: TaskEntry }[];
  /** Ready placeholders whose XCom list the caller has not read yet. */
  readonly needsExpansion: readonly string[];
  readonly wakeAtMs: number | null;
}

export const LOST_REASON = 'the task process was lost with its daemon';

/** The pass over `current` (undefined = the run is gone). */
export function applyPass(current: RunDocument | undefined, input: PassInput): PassResult {
  const none: PassResult = { doc: null, claimed: [], needsExpansion: [], wakeAtMs: null };
  if (current === undefined || current.state !== 'running') return none;
  const { dag, nowMs } = input;
  const byId = new Map(dag.tasks.map((task) => [task.id, task]));
  let doc = current;
  let changed = false;
  const put = (taskKey: string, entry: TaskEntry): void => {
    doc = { ...doc, updatedAtMs: nowMs, tasks: { ...doc.tasks, [taskKey]: entry } };
    changed = true;
  };
  for (const lost of input.lost) {
    const entry = doc.tasks[lost.taskKey];
    const task = entry === undefined ? undefined : byId.get(entry.id);
    if (entry === undefined || task === undefined || !isInFlight(entry)) continue;
    if (entry.proc !== lost.proc || entry.attempt !== lost.attempt) continue;
    put(
      lost.taskKey,
      endedEntry(task, entry, { kind: 'lost', reason: LOST_REASON }, nowMs, input.random()),
    );
  }
  for (const [taskKey, found] of input.expansions) {
    const expanded = expandPlaceholder(doc, taskKey, found, nowMs);
    if (expanded !== null) {
      doc = expanded;
      changed = true;
    }
  }
  const claimed: { taskKey: string; entry: TaskEntry }[] = [];
  const needsExpansion = new Set<string>();
  let wakeAtMs: number | null = null;
  let instanceClaims = 0;
  // Each round changes at least one entry for good, so the rounds are bounded by the entries.
  for (let round = 0; round <= Object.keys(doc.tasks).length + 1; round += 1) {
    const plan = planAdvance(dag, doc, nowMs);
    wakeAtMs = plan.wakeAtMs;
    let progressed = false;
    for (const action of plan.actions) {
      switch (action.kind) {
        case 'finish':
          doc = { ...doc, state: action.state, updatedAtMs: nowMs };
          changed = true;
          break;
        case 'settle': {
          const entry = doc.tasks[action.taskKey];
          if (entry === undefined) break;
          put(action.taskKey, settledEntry(entry, action.state, action.reason, nowMs));
          progressed = true;
          break;
        }
        case 'await-approval': {
          const entry = doc.tasks[action.taskKey];
          if (entry === undefined) break;
          put(action.taskKey, awaitingEntry(entry, nowMs));
          progressed = true;
          break;
        }
        case 'expand':
          needsExpansion.add(action.taskKey);
          break;
        case 'launch': {
          const entry = doc.tasks[action.taskKey];
          const task: ResolvedDagTask | undefined = entry && byId.get(entry.id);
          if (!input.launching || entry === undefined || task === undefined) break;
          // The per-pass cap holds across the rounds of one pass too.
          if (entry.mapIndex !== null && instanceClaims >= MAX_INSTANCE_LAUNCHES_PER_PASS) break;
          const next = claimEntry(task, entry, input.claimer, nowMs);
          if (next === null) break;
          put(action.taskKey, next);
          if (entry.mapIndex !== null) instanceClaims += 1;
          claimed.push({ taskKey: action.taskKey, entry: next });
          break;
        }
      }
    }
    if (!progressed) break;
  }
  return { doc: changed ? doc : null, claimed, needsExpansion: [...needsExpansion], wakeAtMs };
}
