// The mitigate console (docs/dashboard.md "Panels"): bulk start or cancel over the
// failing set, one call every 300 ms, abortable, with a per-job log and tally; a button opens
// the multi-tail on the set; another copies a Markdown incident summary.
import { runStaggered, type BulkResult } from '../../model/bulk-run.js';
import { incidentMarkdown } from '../../model/incident.js';
import { verdictText } from '../../model/verdict.js';
import { jobPath } from '../api.js';
import { copyText } from '../clipboard.js';
import type { AppContext } from '../context.js';
import { h, setText } from '../dom.js';
import type { PanelDefinition } from './panel-host.js';

export const STAGGER_MS = 300;

export const mitigatePanel: PanelDefinition = {
  id: 'mitigate',
  title: 'Mitigate',
  mount(body, ctx: AppContext) {
    const verdict = h('p', { class: 'verdict-line' });
    const set = h('p', { class: 'muted' });
    const log = h('ol', { class: 'bulk-log', 'aria-live': 'polite' });
    const tally = h('p', { class: 'tally' });
    const actions: string[] = [];
    let running: AbortController | null = null;
    const startAll = h('button', { class: 'btn btn-primary', type: 'button' }, 'Run all failing');
    const cancelAll = h(
      'button',
      { class: 'btn btn-danger', type: 'button' },
      'Cancel failing runs',
    );
    const abort = h('button', { class: 'btn', type: 'button', disabled: true }, 'Abort');
    const tail = h('button', { class: 'btn', type: 'button' }, 'Tail failing');
    const summary = h('button', { class: 'btn', type: 'button' }, 'Copy incident summary');
    body.append(
      verdict,
      set,
      h('div', { class: 'panel-toolbar' }, startAll, cancelAll, abort, tail, summary),
      tally,
      log,
    );

    // The failing set: jobs whose last run failed, whether or not a retry or rerun is running now.
    const failingRows = () =>
      ctx.store.snapshot?.rows.filter((row) => row.job.last_run?.outcome === 'failure') ?? [];
    const failing = (): string[] => failingRows().map((row) => row.name);
    const idleFailing = (): string[] =>
      failingRows()
        .filter((row) => !row.job.running)
        .map((row) => row.name);
    const runningFailing = (): string[] =>
      failingRows()
        .filter((row) => row.job.running)
        .map((row) => row.name);

    const bulk = async (verb: 'start' | 'cancel', jobs: string[]): Promise<void> => {
      if (jobs.length === 0 || running !== null) return;
      running = new AbortController();
      abort.disabled = false;
      startAll.disabled = cancelAll.disabled = true;
      log.replaceChildren();
      setText(
        tally,
        `${verb === 'start' ? 'Starting' : 'Cancelling'} ${jobs.length} jobs, ${STAGGER_MS} ms apart…`,
      );
      const onResult = (result: BulkResult): void => {
        const text =
          result.kind === 'ok'
            ? 'ok'
            : result.kind === 'skipped'
              ? 'skipped (aborted)'
              : `failed: ${result.error}`;
        log.append(h('li', { class: `bulk-${result.kind}` }, `${verb} ${result.job}: ${text}`));
        actions.push(`${verb} ${result.job}: ${text}`);
      };
      const result = await runStaggered(jobs, (job) => ctx.api.post(jobPath(job, verb)), {
        clock: ctx.clock,
        staggerMs: STAGGER_MS,
        signal: running.signal,
        onResult,
      });
      setText(tally, `Done: ${result.ok} ok, ${result.failed} failed, ${result.skipped} skipped.`);
      running = null;
      abort.disabled = true;
      startAll.disabled = cancelAll.disabled = false;
      void ctx.poller.refresh();
    };
    startAll.addEventListener('click', () => void bulk('start', idleFailing()));
    cancelAll.addEventListener('click', () => void bulk('cancel', runningFailing()));
    abort.addEventListener('click', () => running?.abort());
    tail.addEventListener('click', () =>
      ctx.nav.openPanel('tail', { jobs: failing().slice(0, 4) }),
    );
    summary.addEventListener('click', () => {
      const snapshot = ctx.store.snapshot;
      if (snapshot === null) return;
      const text = incidentMarkdown({
        nowMs: ctx.clock.now(),
        host: location.host,
        version: ctx.store.version,
        jobSetId: ctx.store.jobSetId,
        cluster: 'not configured (single node)',
        verdict: snapshot.verdict,
        rows: failingRows(),
        actions,
      });
      void copyText(text).then((copied) =>
        ctx.toast(
          copied ? 'Incident summary copied as Markdown' : 'Could not copy the summary',
          copied ? 'info' : 'error',
        ),
      );
    });
    return {
      onSnapshot(snapshot) {
        setText(verdict, verdictText(snapshot.verdict));
        const names = failing();
        setText(
          set,
          names.length === 0
            ? 'No job is failing.'
            : `Failing: ${names.slice(0, 20).join(', ')}${names.length > 20 ? ` and ${names.length - 20} more` : ''}`,
        );
        if (running === null) {
          startAll.disabled = idleFailing().length === 0;
          cancelAll.disabled = runningFailing().length === 0;
        }
      },
      dispose: () => running?.abort(),
    };
  },
};
