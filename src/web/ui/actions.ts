// Every command of the page in one registry (docs/dashboard.md "Command palette", "Keyboard"):
// global actions (refresh, theme, panels, wallboard, ...) registered by the components that own
// them, and per-job actions (logs, run, cancel, copy command, schedule, tail) made for each job.
// The palette lists them; keyboard shortcuts run them by key.

export interface Action {
  readonly id: string;
  readonly label: string;
  /** The key shown in the palette and the `?` overlay, e.g. `g` or `Ctrl-K`. */
  readonly keys?: string;
  readonly run: () => void;
}

export interface JobActionKind {
  readonly id: string;
  /** `Run backup now` etc. */
  readonly label: (job: string) => string;
  readonly run: (job: string) => void;
}

export class ActionRegistry {
  readonly #global = new Map<string, Action>();
  readonly #perJob = new Map<string, JobActionKind>();

  add(action: Action): () => void {
    this.#global.set(action.id, action);
    return () => this.#global.delete(action.id);
  }

  addJobAction(kind: JobActionKind): () => void {
    this.#perJob.set(kind.id, kind);
    return () => this.#perJob.delete(kind.id);
  }

  get(id: string): Action | undefined {
    return this.#global.get(id);
  }

  run(id: string): boolean {
    const action = this.#global.get(id);
    if (action === undefined) return false;
    action.run();
    return true;
  }

  global(): Action[] {
    return [...this.#global.values()];
  }

  /** The per-job actions for these jobs (the palette builds them for the jobs a query hits). */
  forJobs(jobs: readonly string[]): Action[] {
    const actions: Action[] = [];
    for (const job of jobs) {
      for (const kind of this.#perJob.values()) {
        actions.push({ id: `${kind.id}:${job}`, label: kind.label(job), run: () => kind.run(job) });
      }
    }
    return actions;
  }
}
