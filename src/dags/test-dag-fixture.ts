// Test-only: ResolvedDags and run documents built in memory, for the planner and advancer tests.
import type { ResolvedDag, ResolvedDagTask, TriggerRule } from '../config/index.js';
import { makeJob } from '../config/testing.js';
import {
  newRunDocument,
  type RunDocument,
  type TaskEntry,
  type TaskState,
} from './run-document.js';

export interface TaskSpec {
  readonly id: string;
  readonly kind?: ResolvedDagTask['kind'];
  readonly dependsOn?: readonly string[];
  readonly triggerRule?: TriggerRule;
  readonly retries?: number;
  readonly retryDelayMs?: number;
  readonly command?: string;
  readonly expand?: { readonly fromTask: string; readonly key: string };
  readonly onReject?: 'fail' | 'skip';
  readonly poke?: {
    readonly intervalMs: number;
    readonly timeoutMs: number;
    readonly jitterMs: number;
  };
  readonly captureStdout?: boolean;
}

export function makeTask(spec: TaskSpec, dag = 'd'): ResolvedDagTask {
  const common = {
    id: spec.id,
    templateName: `${dag}.${spec.id}`,
    dependsOn: spec.dependsOn ?? [],
    triggerRule: spec.triggerRule ?? 'all_success',
    retries: spec.retries ?? 0,
    retryDelayMs: spec.retryDelayMs ?? 0,
  };
  const job = makeJob({
    name: `${dag}.${spec.id}`,
    command: { kind: 'shell', script: spec.command ?? 'true' },
    captureStdout: spec.captureStdout ?? false,
    captureStderr: true,
  });
  switch (spec.kind ?? 'task') {
    case 'approval':
      return { ...common, kind: 'approval', onReject: spec.onReject ?? 'fail' };
    case 'sensor':
      return {
        ...common,
        kind: 'sensor',
        job,
        poke: spec.poke ?? { intervalMs: 30_000, timeoutMs: 3_600_000, jitterMs: 0 },
      };
    case 'task':
      return { ...common, kind: 'task', job, expand: spec.expand ?? null };
  }
}

export function makeDag(
  name: string,
  tasks: readonly TaskSpec[],
  extra: Partial<ResolvedDag> = {},
): ResolvedDag {
  return {
    name,
    schedule: null,
    timezone: 'UTC',
    onMissed: 'skip',
    startingDeadlineMs: null,
    catchupJitterSeconds: 0,
    clusterPolicy: 'Leader',
    enabled: true,
    retainRuns: 50,
    tasks: tasks.map((spec) => makeTask(spec, name)),
    source: { file: 'jobs.yaml', line: 1 },
    ...extra,
  };
}

/** A manual run of `dag` at `nowMs` with some entries moved to the given states. */
export function makeRun(
  dag: ResolvedDag,
  states: Readonly<Record<string, TaskState | Partial<TaskEntry>>> = {},
  nowMs = 1_000_000,
): RunDocument {
  const doc = newRunDocument(
    dag,
    { runKey: 'manual-000000000001', runId: 'a'.repeat(32), logicalDateMs: null, kind: 'manual' },
    nowMs,
  );
  const tasks: Record<string, TaskEntry> = { ...doc.tasks };
  for (const [key, change] of Object.entries(states)) {
    const hash = key.indexOf('#');
    const id = hash < 0 ? key : key.slice(0, hash);
    const base: TaskEntry = tasks[key] ?? {
      ...(tasks[id] as TaskEntry),
      mapIndex: Number(key.slice(hash + 1)),
    };
    const { mapped: _mapped, ...unmapped } = base;
    const next = typeof change === 'string' ? { state: change } : change;
    // An instance, or an expanded placeholder, is no longer `mapped`.
    const keepMapped = hash < 0 && next.state !== 'expanded';
    tasks[key] = { ...(keepMapped ? base : unmapped), ...next };
  }
  return { ...doc, tasks };
}
