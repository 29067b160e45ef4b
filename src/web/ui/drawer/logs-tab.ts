// The drawer's Logs tab: the job's output stream in a LogView, with Run and Cancel beside the
// search. Run starts the job and re-attaches the stream to the new run at once.
import { h } from '../dom.js';
import { JobStream, capturesNothing } from '../logs/job-stream.js';
import { LogView } from '../logs/log-view.js';
import type { DrawerTab, DrawerTabInstance } from './tab.js';

export const logsTab: DrawerTab = {
  id: 'logs',
  label: 'Logs',
  available: () => Promise.resolve(true),
  mount(host, ctx, job): DrawerTabInstance {
    const run = h('button', { class: 'btn btn-small btn-primary', type: 'button' }, 'Run now');
    const cancel = h('button', { class: 'btn btn-small btn-danger', type: 'button' }, 'Cancel');
    const view = new LogView({
      merged: false,
      downloadName: () => job,
      label: `Output of ${job}`,
      extra: [run, cancel],
    });
    host.append(view.element);
    const stream = new JobStream(ctx, job, {
      attach: () => {
        if (view.buffer.size > 0) view.mark('── new run ──', ctx.clock.now());
        view.setNotice(null);
      },
      line: (kind, text) => view.append(kind, text, ctx.clock.now()),
      end: (reason) => {
        const row = ctx.store.snapshot?.byName.get(job);
        if (reason === 'ended') view.mark('── end of run output ──', ctx.clock.now());
        else if (row !== undefined && capturesNothing(row.job)) {
          view.setNotice('This job captures no output (captureStdout and captureStderr are off).');
        } else if (view.buffer.size === 0)
          view.setNotice(
            'No output yet: the job has not run since the daemon started, or printed nothing. New runs appear here.',
          );
      },
      notice: (text) => view.setNotice(text),
    });
    run.addEventListener('click', () => {
      void ctx.jobs.start(job).then((started) => {
        if (started) stream.connect();
      });
    });
    cancel.addEventListener('click', () => void ctx.jobs.cancel(job));
    const sync = (running: boolean, enabled: boolean): void => {
      cancel.disabled = !running;
      run.disabled = !enabled;
    };
    const row = ctx.store.snapshot?.byName.get(job);
    sync(row?.job.running ?? false, row?.job.enabled ?? true);
    stream.connect();
    return {
      onRow: (next) => sync(next?.job.running ?? false, next?.job.enabled ?? false),
      dispose: () => {
        stream.dispose();
        view.dispose();
      },
    };
  },
};
