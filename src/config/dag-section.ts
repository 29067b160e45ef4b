// The `dags:` section (docs/dags.md "Configuration"): typing each DAG of a file, then resolving
// the assembled list against the whole config — ids, edges and cycles, `expand`, the schedule
// (never @reboot), the template-name clash with jobs, the state + job API precondition — into
// frozen ResolvedDags whose tasks carry their template jobs.
// Must not: apply `defaults:` to a task, or let DAGs count in the job-set id.
import { deepFreeze } from '../common/index.js';
import {
  DAG_SCHEMA,
  DAG_TASK_LAUNCH_KEYS,
  type DagTaskLaunchKey,
  type ResolvedDag,
  type ResolvedDagTask,
  type TypedDag,
  type TypedDagTask,
  type TypedDagTaskLaunch,
} from './dag-schema.js';
import { findCycle } from './dag-cycle.js';
import { childPath, indexPath, issueAt, type ConfigIssue, type Loc } from './issues.js';
import type { TypedJob } from './job-schema.js';
import { resolveJob, resolveSchedule, type ResolveServices } from './resolve-job.js';
import { walkItems, type WalkContext } from './schema.js';
import type { ResolvedJob } from './types.js';
import type { RawNode } from './yaml-tree.js';

export const REBOOT_REFUSED =
  'DAG schedules must be cron expressions; @reboot is not supported for dags';

/** A typed DAG and where it was written. */
export interface DagEntry {
  readonly typed: TypedDag;
  readonly loc: Loc;
}

/** Type the `dags:` list of one file into `out` (a broken DAG does not hide the others). */
export function typeDags(
  node: RawNode,
  path: string,
  line: number,
  ctx: WalkContext,
  out: DagEntry[],
): void {
  walkItems(
    DAG_SCHEMA,
    { plural: 'DAGs', singular: 'DAG' },
    node,
    path,
    line,
    ctx,
    (typed, loc, clean) => {
      if (clean()) out.push({ typed, loc });
    },
  );
}

/** What the DAG checks need from the rest of the configuration. */
export interface DagContext {
  /** Configured job names and where each was written. */
  readonly jobNames: ReadonlyMap<string, Loc>;
  /** A `state` section with the job API enabled is configured. */
  readonly jobApiAvailable: boolean;
}

export interface ResolvedDags {
  readonly dags: readonly ResolvedDag[];
  readonly issues: readonly ConfigIssue[];
}

/** Resolve every DAG of the configuration (config order); the problems are collected. */
export async function resolveDags(
  entries: readonly DagEntry[],
  services: ResolveServices,
  context: DagContext,
): Promise<ResolvedDags> {
  const issues: ConfigIssue[] = [];
  const dags: ResolvedDag[] = [];
  const first = entries[0];
  if (first === undefined) return { dags, issues };
  if (!context.jobApiAvailable) {
    issues.push(
      issueAt(
        first.loc,
        "DAGs need a 'state' section with the job API enabled (state.jobApi.enabled)",
      ),
    );
  }
  const dagNames = new Map<string, Loc>();
  const templates = new Map<string, Loc>();
  for (const entry of entries) {
    const { typed } = entry;
    const nameLoc = services.locs.at(typed, 'name', {
      ...entry.loc,
      path: childPath(entry.loc.path, 'name'),
    });
    const earlier = dagNames.get(typed.name);
    if (earlier !== undefined) {
      issues.push(
        issueAt(
          nameLoc,
          `duplicate DAG name '${typed.name}' (first defined in ${earlier.file} at ${earlier.path} (line ${earlier.line}))`,
        ),
      );
      continue;
    }
    dagNames.set(typed.name, nameLoc);
    const before = issues.length;
    const dag = await new DagResolution(entry, services, issues).run();
    if (dag === null || issues.length > before) continue;
    for (const task of dag.tasks) {
      const taskLoc = services.locs.get(entry.typed.tasks, dag.tasks.indexOf(task)) ?? entry.loc;
      const clash = context.jobNames.get(task.templateName) ?? templates.get(task.templateName);
      if (clash !== undefined) {
        issues.push(
          issueAt(
            taskLoc,
            `DAG ${dag.name}: task template name '${task.templateName}' clashes with the job or DAG task defined in ${clash.file} at ${clash.path} (line ${clash.line})`,
          ),
        );
      }
      templates.set(task.templateName, taskLoc);
    }
    if (issues.length === before) dags.push(dag);
  }
  return { dags, issues };
}

/** One DAG's checks, in the order of docs/dags.md "Configuration". */
class DagResolution {
  readonly #entry: DagEntry;
  readonly #services: ResolveServices;
  readonly #issues: ConfigIssue[];

  constructor(entry: DagEntry, services: ResolveServices, issues: ConfigIssue[]) {
    this.#entry = entry;
    this.#services = services;
    this.#issues = issues;
  }

  #where(container: object, key: string | number, parentPath: string): Loc {
    const path = typeof key === 'number' ? indexPath(parentPath, key) : childPath(parentPath, key);
    return this.#services.locs.at(container, key, { ...this.#entry.loc, path });
  }

  #report(loc: Loc, message: string): void {
    this.#issues.push(issueAt(loc, `DAG ${this.#entry.typed.name}: ${message}`));
  }

  async run(): Promise<ResolvedDag | null> {
    const dag = this.#entry.typed;
    const path = this.#entry.loc.path;
    const before = this.#issues.length;
    if (dag.name.trim() === '')
      this.#report(this.#where(dag, 'name', path), 'a DAG name must not be empty');
    const utc = dag.utc ?? true;
    const timezone = dag.timezone !== undefined ? dag.timezone : utc ? 'UTC' : null;
    let schedule: ResolvedDag['schedule'] = null;
    if (dag.schedule !== undefined) {
      const scheduled = resolveSchedule(dag.schedule, timezone, this.#services);
      if ('error' in scheduled) {
        this.#report(this.#where(dag, scheduled.field, path), scheduled.error);
      } else if (scheduled.schedule.kind === 'reboot') {
        this.#report(this.#where(dag, 'schedule', path), REBOOT_REFUSED);
      } else {
        Object.freeze(scheduled.schedule);
        schedule = scheduled.schedule;
      }
    }
    const retainRuns = dag.retainRuns ?? 50;
    if (retainRuns < 1)
      this.#report(this.#where(dag, 'retainRuns', path), 'retainRuns must be >= 1');
    const deadline = dag.startingDeadlineSeconds ?? null;
    if (deadline !== null && deadline <= 0) {
      this.#report(
        this.#where(dag, 'startingDeadlineSeconds', path),
        'startingDeadlineSeconds must be > 0',
      );
    }
    const jitter = dag.catchupJitterSeconds ?? 0;
    if (jitter < 0)
      this.#report(
        this.#where(dag, 'catchupJitterSeconds', path),
        'catchupJitterSeconds must be >= 0',
      );

    const tasksPath = childPath(path, 'tasks');
    const ids = this.#checkIds(dag.tasks, tasksPath);
    if (this.#issues.length === before) this.#checkEdges(dag.tasks, tasksPath, ids);
    const tasks: ResolvedDagTask[] = [];
    for (const [index, task] of dag.tasks.entries()) {
      const resolved = await this.#resolveTask(task, this.#where(dag.tasks, index, tasksPath));
      if (resolved !== null) tasks.push(resolved);
    }
    if (this.#issues.length > before) return null;
    return deepFreeze({
      name: dag.name,
      schedule,
      timezone,
      onMissed: dag.onMissed ?? 'skip',
      startingDeadlineMs: deadline === null ? null : deadline * 1000,
      catchupJitterSeconds: jitter,
      clusterPolicy: dag.clusterPolicy ?? 'Leader',
      enabled: dag.enabled ?? true,
      retainRuns,
      tasks,
      source: { file: this.#entry.loc.file, line: this.#entry.loc.line },
    });
  }

  /** Non-empty, unique, no `#` or `/`; the ids by index. */
  #checkIds(tasks: readonly TypedDagTask[], tasksPath: string): ReadonlyMap<string, number> {
    const ids = new Map<string, number>();
    tasks.forEach((task, index) => {
      const loc = this.#where(task, 'id', indexPath(tasksPath, index));
      if (task.id.trim() === '') return this.#report(loc, 'a task id must not be empty');
      if (task.id.includes('#') || task.id.includes('/')) {
        return this.#report(loc, `task id '${task.id}' must not contain '#' or '/'`);
      }
      if (ids.has(task.id)) return this.#report(loc, `duplicate task id '${task.id}'`);
      ids.set(task.id, index);
    });
    return ids;
  }

  /** dependsOn targets exist, no self-edge, no cycle; `expand` names a direct, unmapped upstream. */
  #checkEdges(
    tasks: readonly TypedDagTask[],
    tasksPath: string,
    ids: ReadonlyMap<string, number>,
  ): void {
    const before = this.#issues.length;
    tasks.forEach((task, index) => {
      const taskPath = indexPath(tasksPath, index);
      const upstream = task.dependsOn ?? [];
      upstream.forEach((id, position) => {
        const loc = this.#where(upstream, position, childPath(taskPath, 'dependsOn'));
        if (id === task.id) this.#report(loc, `task '${task.id}' depends on itself`);
        else if (!ids.has(id))
          this.#report(loc, `task '${task.id}' depends on unknown task '${id}'`);
      });
      if (task.expand === undefined) return;
      const loc = this.#where(task, 'expand', taskPath);
      const type = task.type ?? 'task';
      if (type !== 'task') {
        this.#report(
          loc,
          `task '${task.id}': expand is only allowed on tasks of type 'task', not '${type}'`,
        );
        return;
      }
      const from = task.expand.fromTask;
      if (!upstream.includes(from)) {
        this.#report(
          loc,
          `task '${task.id}': expand.fromTask '${from}' must be one of its dependsOn`,
        );
        return;
      }
      const source = tasks[ids.get(from) ?? -1];
      if (source?.expand !== undefined) {
        this.#report(loc, `task '${task.id}': expand.fromTask '${from}' is itself mapped`);
      }
    });
    if (this.#issues.length > before) return;
    const cycle = findCycle(tasks);
    if (cycle !== null) {
      const start = ids.get(cycle[0] ?? '') ?? 0;
      this.#report(
        this.#where(tasks[start] ?? tasks, 'dependsOn', indexPath(tasksPath, start)),
        `dependsOn forms a cycle: ${cycle.join(' -> ')}`,
      );
    }
  }

  async #resolveTask(task: TypedDagTask, loc: Loc): Promise<ResolvedDagTask | null> {
    const dag = this.#entry.typed;
    const templateName = `${dag.name}.${task.id}`;
    const at = (key: string): Loc => this.#where(task, key, loc.path);
    const retries = task.retries ?? 0;
    if (retries < 0) this.#report(at('retries'), `task '${task.id}': retries must be >= 0`);
    const retryDelaySeconds = task.retryDelaySeconds ?? 0;
    if (!(retryDelaySeconds >= 0 && Number.isFinite(retryDelaySeconds))) {
      this.#report(
        at('retryDelaySeconds'),
        `task '${task.id}': retryDelaySeconds must be a finite number >= 0`,
      );
    }
    const common = {
      id: task.id,
      templateName,
      dependsOn: [...new Set(task.dependsOn ?? [])],
      triggerRule: task.triggerRule ?? 'all_success',
      retries,
      retryDelayMs: retryDelaySeconds * 1000,
    } as const;
    const type = task.type ?? 'task';
    if (type === 'approval')
      return { ...common, kind: 'approval', onReject: task.onReject ?? 'fail' };
    const job = await this.#templateJob(task, templateName, loc);
    if (job === null) return null;
    if (type === 'task') {
      return {
        ...common,
        kind: 'task',
        job,
        expand: task.expand === undefined ? null : { ...task.expand },
      };
    }
    const poke = {
      intervalMs: (task.pokeIntervalSeconds ?? 30) * 1000,
      timeoutMs: (task.pokeTimeoutSeconds ?? 3600) * 1000,
      jitterMs: (task.pokeJitterSeconds ?? 0) * 1000,
    };
    const pokeChecks: readonly [string, number, boolean][] = [
      ['pokeIntervalSeconds', poke.intervalMs, poke.intervalMs > 0],
      ['pokeTimeoutSeconds', poke.timeoutMs, poke.timeoutMs > 0],
      ['pokeJitterSeconds', poke.jitterMs, poke.jitterMs >= 0],
    ];
    for (const [key, value, ok] of pokeChecks) {
      if (!ok || !Number.isFinite(value)) {
        this.#report(
          at(key),
          `task '${task.id}': ${key} must be a finite number ${key === 'pokeJitterSeconds' ? '>=' : '>'} 0`,
        );
      }
    }
    return { ...common, kind: 'sensor', job, poke };
  }

  /** The task's launch keys over the built-in job defaults, resolved like a job (no `defaults:`). */
  async #templateJob(task: TypedDagTask, name: string, loc: Loc): Promise<ResolvedJob | null> {
    if (task.command === undefined) {
      this.#report(loc, `task '${task.id}' needs a command (only approval gates run nothing)`);
      return null;
    }
    const { locs } = this.#services;
    const written: TypedDagTaskLaunch = task;
    const launch: { -readonly [K in DagTaskLaunchKey]?: TypedDagTaskLaunch[K] } = {};
    for (const key of DAG_TASK_LAUNCH_KEYS) copyWritten(written, launch, key);
    // The launch rows are the job's own rows (job-schema.ts DAG_TASK_LAUNCH_FIELDS), so the
    // picked keys type as the job's; `@reboot` stands in for the schedule a task does not have.
    const typed: TypedJob = { ...launch, name, command: task.command, schedule: '@reboot' };
    for (const key of [...DAG_TASK_LAUNCH_KEYS, 'command']) {
      const keyLoc = locs.get(task, key);
      if (keyLoc !== undefined) locs.set(typed, key, keyLoc);
    }
    const idLoc = locs.get(task, 'id');
    if (idLoc !== undefined) locs.set(typed, 'name', idLoc);
    const resolved = await resolveJob(
      { typed, layer: null, loc },
      templateServices(this.#services),
    );
    if ('message' in resolved) {
      this.#issues.push(resolved);
      return null;
    }
    return resolved;
  }
}

/** The load's services for a template job: its identity is no job's (DAGs are not in the id). */
function templateServices(services: ResolveServices): ResolveServices {
  return {
    locs: services.locs,
    cwd: services.cwd,
    platform: services.platform,
    euid: services.euid,
    parseSchedule: (expression, timezone) => services.parseSchedule(expression, timezone),
    assertTimezone: (name) => services.assertTimezone(name),
    localTimezone: () => services.localTimezone(),
    readEnvFile: (absolute) => services.readEnvFile(absolute),
    identityDatabase: () => services.identityDatabase(),
    displayPath: (absolute) => services.displayPath(absolute),
    onJobIdentity: undefined,
  };
}

/** `to[key] = from[key]` when it was written (an unwritten key stays absent, not undefined). */
function copyWritten<T, K extends keyof T>(
  from: T,
  to: { -readonly [P in keyof T]?: T[P] },
  key: K,
): void {
  const value = from[key];
  if (value !== undefined) to[key] = value;
}
