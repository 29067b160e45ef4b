// The DAG writes of the page (docs/dashboard.md "DAG cards and the run drawer"): trigger a run,
// backfill a date range, approve or reject a waiting gate, cancel a run. Each says what happened
// in a toast (the daemon's refusal text included) and asks for a fresh poll; the cards, the run
// drawer and the command palette share them.
// Must not: retry a write on its own.
import {
  backfillBody,
  dagPath,
  dagRunPath,
  type DagBackfillWire,
  type DagCancelWire,
  type DagDecisionWire,
  type DagTriggerWire,
  type DagWire,
} from '../../model/dags.js';
import type { AppContext } from '../context.js';

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class DagCommands {
  readonly #ctx: AppContext;

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
  }

  /** Starts a manual run; answers its run key (null when refused). */
  async trigger(dag: string): Promise<string | null> {
    try {
      const reply = await this.#ctx.api.postJson<DagTriggerWire>(dagPath(dag, 'trigger'));
      this.#ctx.toast(`Triggered ${dag}: ${reply.runKey}`);
      void this.#ctx.poller.refresh();
      return reply.runKey;
    } catch (error) {
      this.#ctx.toast(message(error), 'error');
      return null;
    }
  }

  /** Backfills the UTC days `from`..`to` (`YYYY-MM-DD`, inclusive); answers the error or null. */
  async backfill(dag: string, from: string, to: string): Promise<string | null> {
    const body = backfillBody(from, to);
    if (!body.ok) return body.error;
    try {
      const reply = await this.#ctx.api.postJson<DagBackfillWire>(
        dagPath(dag, 'backfill'),
        body.body,
      );
      this.#ctx.toast(
        `Backfill of ${dag}: ${reply.created} logical date${reply.created === 1 ? '' : 's'} (runs that existed are kept)`,
      );
      void this.#ctx.poller.refresh();
      return null;
    } catch (error) {
      this.#ctx.toast(message(error), 'error');
      return message(error);
    }
  }

  async decide(
    dag: string,
    runKey: string,
    taskKey: string,
    decision: 'approve' | 'reject',
  ): Promise<boolean> {
    try {
      const reply = await this.#ctx.api.postJson<DagDecisionWire>(
        dagRunPath(dag, runKey, `tasks/${encodeURIComponent(taskKey)}/decision`),
        { decision, by: 'dashboard' },
      );
      this.#ctx.toast(
        `${decision === 'approve' ? 'Approved' : 'Rejected'} ${taskKey}: ${reply.state}`,
      );
      void this.#ctx.poller.refresh();
      return true;
    } catch (error) {
      this.#ctx.toast(message(error), 'error');
      return false;
    }
  }

  /** Cancels a running run (recorded `by: dashboard`); answers whether the daemon did. */
  async cancelRun(dag: string, runKey: string): Promise<boolean> {
    try {
      await this.#ctx.api.postJson<DagCancelWire>(dagRunPath(dag, runKey, 'cancel'), {
        by: 'dashboard',
      });
      this.#ctx.toast(`Cancelled ${dag} run ${runKey}`);
      void this.#ctx.poller.refresh();
      return true;
    } catch (error) {
      this.#ctx.toast(message(error), 'error');
      return false;
    }
  }

  /** Scheduled DAGs can be backfilled (the daemon refuses the others). */
  static canBackfill(dag: DagWire): boolean {
    return dag.scheduled;
  }
}
