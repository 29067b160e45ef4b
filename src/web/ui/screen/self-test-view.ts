// The start-up self-test on the page (docs/dashboard.md "Start-up self-test"): a screen over the
// page at load that runs model/self-test.ts's steps through the API client and shows each line's
// OK / FAIL / SKIP, then READY. The page starts underneath at once and keeps polling; any key or
// click skips the screen (the key does nothing else); an open dialog (the token prompt) keeps its
// keys. It runs when due (the setting, no reduced motion, not shown in the last 12 h), or on
// demand from the palette.
// Must not: delay or block the page, or ask for the whole job list again (the job line reads the
// page's own first poll).
import type { JobSetIdWire } from '../../model/api-types.js';
import type { ClusterWire } from '../../model/cluster.js';
import {
  clusterOutcome,
  daemonOutcome,
  jobSetOutcome,
  jobsOutcome,
  parseShownAt,
  runSelfTest,
  SELF_TEST_STEPS,
  SELF_TEST_TIMING,
  selfTestDue,
  tokenOutcome,
  versionOutcome,
  type FirstPoll,
  type Probe,
  type RunnableStep,
  type SelfTestVerdict,
  type StepId,
  type StepOutcome,
} from '../../model/self-test.js';
import { ApiError, type ApiClient } from '../api.js';
import type { AppContext } from '../context.js';
import { afterPaint, h, setText } from '../dom.js';
import type { AppStore } from '../store.js';

/** localStorage: when the screen last ran (epoch ms), for the 12-hour cooldown. */
export const SELF_TEST_SHOWN_KEY = 'yacron2.dashboard.self-test-shown';

/** How long the last line stays up: READY briefly, a failure long enough to read. */
const HOLD_MS: Readonly<Record<SelfTestVerdict['kind'], number>> = {
  ready: 700,
  degraded: 2000,
  halted: 2000,
  skipped: 0,
};

const STATUS_WORD: Readonly<Record<StepOutcome['kind'] | 'pending', string>> = {
  ok: 'OK',
  fail: 'FAIL',
  skipped: 'SKIP',
  pending: '…',
};

async function probe<T>(request: () => Promise<T>): Promise<Probe<T>> {
  try {
    return { kind: 'answer', value: await request() };
  } catch (error) {
    if (error instanceof ApiError && error.status !== 0)
      return { kind: 'status', status: error.status };
    return {
      kind: 'no-answer',
      message: error instanceof Error ? error.message : String(error),
    };
  }
}

/** The page's own first `/jobs` poll, as it lands (or what it ran into). */
function firstPoll(store: AppStore, signal: AbortSignal): Promise<FirstPoll> {
  const now = (): FirstPoll | null => {
    if (store.snapshot !== null)
      return {
        kind: 'jobs',
        total: store.snapshot.counts.total,
        failing: store.snapshot.counts.failing,
      };
    if (store.connection.state === 'unauthorized') return { kind: 'unauthorized' };
    if (store.connection.state === 'error')
      return { kind: 'error', message: store.connection.message };
    return null;
  };
  const already = now();
  if (already !== null) return Promise.resolve(already);
  return new Promise((resolve) => {
    const offs: (() => void)[] = [];
    const settle = (poll: FirstPoll | null): void => {
      if (poll === null) return;
      for (const off of offs.splice(0)) off();
      resolve(poll);
    };
    offs.push(
      store.on('snapshot', () => settle(now())),
      store.on('connection', () => settle(now())),
    );
    signal.addEventListener('abort', () => settle({ kind: 'error', message: 'no answer yet' }), {
      once: true,
    });
  });
}

/** The six steps over one API client; the first three share one `GET /version`. */
function steps(api: ApiClient, store: AppStore, hasToken: boolean): RunnableStep[] {
  let version: Promise<Probe<string>> | null = null;
  const versionProbe = (signal: AbortSignal): Promise<Probe<string>> =>
    (version ??= probe(() => api.text('/version', signal)));
  const runs: Readonly<Record<StepId, (signal: AbortSignal) => Promise<StepOutcome>>> = {
    daemon: async (signal) => daemonOutcome(await versionProbe(signal)),
    token: async (signal) => tokenOutcome(await versionProbe(signal), hasToken),
    version: async (signal) => versionOutcome(await versionProbe(signal)),
    'job-set': async (signal) =>
      jobSetOutcome(await probe(() => api.json<JobSetIdWire>('/job-set-id', signal))),
    cluster: async (signal) =>
      clusterOutcome(await probe(() => api.optionalJson<ClusterWire>('/cluster', signal))),
    jobs: async (signal) => jobsOutcome(await firstPoll(store, signal)),
  };
  return SELF_TEST_STEPS.map(({ id, label }) => ({
    id,
    label,
    run: runs[id],
    ...(id === 'daemon'
      ? { onTimeout: { kind: 'fail', detail: 'no answer', halts: true } as const }
      : {}),
  }));
}

export class SelfTestScreen {
  readonly element: HTMLElement;
  readonly #ctx: AppContext;
  readonly #storage: Storage | null;
  readonly #lines: HTMLElement;
  readonly #verdict: HTMLElement;
  #running: AbortController | null = null;

  constructor(ctx: AppContext, storage: Storage | null) {
    this.#ctx = ctx;
    this.#storage = storage;
    this.#lines = h('ol', { class: 'post-lines' });
    this.#verdict = h('p', { class: 'post-verdict', hidden: true });
    this.element = h(
      'section',
      { class: 'post', hidden: true, role: 'status', 'aria-label': 'Start-up self-test' },
      h(
        'div',
        { class: 'post-log' },
        h('p', { class: 'post-banner' }, 'YACRON2 DASHBOARD'),
        h('p', { class: 'post-sub' }, 'Start-up self-test'),
        this.#lines,
        this.#verdict,
        h('p', { class: 'post-hint' }, 'Press any key or click to skip'),
      ),
    );
    this.element.addEventListener('pointerdown', (event) => {
      event.preventDefault();
      this.skip();
    });
    document.addEventListener('keydown', (event) => this.#onKey(event), { capture: true });
    // Turning the setting on again shows the screen at the next load, cooldown or not.
    let enabled = ctx.prefs.value.selfTest;
    ctx.prefs.subscribe((next) => {
      if (next.selfTest && !enabled) this.#forget();
      enabled = next.selfTest;
    });
  }

  /** At page load: runs when the setting is on, motion is not reduced and it is due. */
  startIfDue(): void {
    const storage = this.#storage;
    let shown: string | null = null;
    try {
      shown = storage?.getItem(SELF_TEST_SHOWN_KEY) ?? null;
    } catch {
      shown = null;
    }
    const due = selfTestDue({
      enabled: this.#ctx.prefs.value.selfTest,
      reducedMotion: document.documentElement.dataset['motion'] === 'reduce',
      nowMs: this.#ctx.clock.now(),
      shownAtMs: parseShownAt(shown),
    });
    if (!due) return;
    try {
      storage?.setItem(SELF_TEST_SHOWN_KEY, String(this.#ctx.clock.now()));
    } catch {
      // Not remembered: the screen shows again at the next load.
    }
    void this.run();
  }

  /** Runs the test now (the palette); resolves when the screen is gone. */
  async run(): Promise<SelfTestVerdict> {
    if (this.#running !== null) return { kind: 'skipped' };
    const skip = new AbortController();
    this.#running = skip;
    const { clock } = this.#ctx;
    const rows = new Map<
      StepId,
      { status: HTMLElement; result: HTMLElement; detail: HTMLElement }
    >();
    this.#lines.replaceChildren();
    this.#verdict.hidden = true;
    delete this.element.dataset['verdict'];
    this.element.hidden = false;
    // The requests wait for the page's first frame (they would only delay it).
    await afterPaint(clock);
    const verdict = await runSelfTest(
      steps(this.#ctx.api, this.#ctx.store, this.#ctx.tokens.get() !== null),
      {
        clock,
        ...SELF_TEST_TIMING,
        skip: skip.signal,
        onStart: (step) => {
          const status = h('span', { class: 'post-status' }, STATUS_WORD.pending);
          const detail = h('span', { class: 'post-detail' });
          const result = h(
            'span',
            { class: 'post-result', 'data-outcome': 'pending' },
            status,
            ' ',
            detail,
            h('span', { class: 'post-cursor', 'aria-hidden': 'true' }, '█'),
          );
          rows.set(step.id, { status, result, detail });
          this.#lines.append(this.#line(step, result));
        },
        onResult: (step, outcome) => {
          let row = rows.get(step.id);
          if (row === undefined) {
            const status = h('span', { class: 'post-status' });
            const detail = h('span', { class: 'post-detail' });
            const result = h('span', { class: 'post-result' }, status, ' ', detail);
            row = { status, result, detail };
            this.#lines.append(this.#line(step, result));
          }
          row.result.dataset['outcome'] = outcome.kind;
          row.result.querySelector('.post-cursor')?.remove();
          setText(row.status, STATUS_WORD[outcome.kind]);
          setText(row.detail, outcome.detail);
        },
      },
    );
    this.element.dataset['verdict'] = verdict.kind;
    if (verdict.kind !== 'skipped') {
      this.#verdict.dataset['verdict'] = verdict.kind;
      setText(this.#verdict, verdictText(verdict));
      this.#verdict.hidden = false;
      try {
        await clock.sleep(HOLD_MS[verdict.kind], skip.signal);
      } catch {
        // Skipped while the last line was up.
      }
    }
    this.element.hidden = true;
    this.#running = null;
    return verdict;
  }

  #forget(): void {
    try {
      this.#storage?.removeItem(SELF_TEST_SHOWN_KEY);
    } catch {
      // Storage disabled: nothing was remembered either.
    }
  }

  skip(): void {
    const running = this.#running;
    if (running === null) return;
    running.abort();
    // Gone at once: the runner notices the skip at its next await.
    this.element.hidden = true;
  }

  #line(step: RunnableStep, result: HTMLElement): HTMLElement {
    return h(
      'li',
      { class: 'post-line', 'data-step': step.id },
      h('span', { class: 'post-label' }, step.label),
      h('span', { class: 'post-lead', 'aria-hidden': 'true' }),
      result,
    );
  }

  #onKey(event: KeyboardEvent): void {
    if (this.#running === null || this.element.hidden) return;
    // The token prompt (or any dialog) owns its keys.
    if (document.querySelector('dialog[open]') !== null) return;
    event.preventDefault();
    event.stopPropagation();
    this.skip();
  }
}

function verdictText(verdict: SelfTestVerdict): string {
  switch (verdict.kind) {
    case 'ready':
      return 'READY.';
    case 'degraded':
      return `READY, ${verdict.failed} check${verdict.failed === 1 ? '' : 's'} failed: the page shows what answered.`;
    case 'halted':
      return `HALTED at ${verdict.label.toLowerCase()}: ${verdict.detail}. The page starts anyway.`;
    case 'skipped':
      return '';
  }
}
