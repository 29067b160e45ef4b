// The drawer's tab contract: the four phase-1 tabs implement it, and later views (a DAG task's
// logs, a job's state keys) register more the same way (docs/dashboard.md "Extending").
import type { JobRow } from '../../model/job-status.js';
import type { AppContext } from '../context.js';

export interface DrawerTabInstance {
  /** The job's row changed (new poll); undefined = the job is gone from the config. */
  onRow?(row: JobRow | undefined): void;
  onTick?(nowMs: number): void;
  dispose(): void;
}

export interface DrawerTab {
  readonly id: string;
  readonly label: string;
  /** Whether the tab applies (e.g. the daemon serves the route it needs). */
  available(ctx: AppContext, job: string): Promise<boolean>;
  mount(host: HTMLElement, ctx: AppContext, job: string): DrawerTabInstance;
}
