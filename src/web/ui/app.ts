// The composition root of the page: builds the stores, the API client, the poller and every
// component, registers the actions, panels and shortcuts, and routes the URL hash. The only
// place that touches window, location and the storages.
import type { Clock } from '../../common/clock.js';
import { runStaggered } from '../model/bulk-run.js';
import { ActionRegistry } from './actions.js';
import { installAlarm } from './alerts/alarm-view.js';
import { RunAlerts } from './alerts/run-alerts.js';
import { ApiClient, jobPath } from './api.js';
import { copyText } from './clipboard.js';
import { takeFirstJobs } from './first-jobs.js';
import { ClusterBar } from './cluster-bar.js';
import type { AppContext, JobCommands, Navigation, PanelOpenOptions } from './context.js';
import { DagCards } from './dags/dag-cards.js';
import { DagCommands } from './dags/dag-commands.js';
import { DagRunDrawer } from './dags/dag-drawer.js';
import { Drawer } from './drawer/drawer.js';
import { afterPaint, h } from './dom.js';
import { Header } from './header.js';
import { BrowserLedger } from './ledger/browser-ledger.js';
import { LedgerDb } from './ledger/ledger-db.js';
import { Palette } from './palette.js';
import { clusterPanel } from './panels/cluster.js';
import { fleetPanel } from './panels/fleet.js';
import { heatmapPanel } from './panels/heatmap.js';
import { helpPanel } from './panels/help.js';
import { mitigatePanel, STAGGER_MS } from './panels/mitigate.js';
import { multiTailPanel } from './panels/multi-tail.js';
import { nodeHistoryPanel } from './panels/node-history.js';
import { PanelHost } from './panels/panel-host.js';
import { sandboxPanel } from './panels/sandbox.js';
import { settingsPanel } from './panels/settings.js';
import { statePanel } from './panels/state.js';
import { timelinePanel } from './panels/timeline.js';
import { Poller } from './poller.js';
import { PrefsStore, THEMES } from './prefs.js';
import { formatHash, parseHash, type Route } from './router.js';
import { installScreen } from './screen/install.js';
import { installShortcuts } from './shortcuts.js';
import { AppStore } from './store.js';
import { JobTable } from './table/job-table.js';
import { applyPrefs } from './theme.js';
import { Ticker } from './ticker.js';
import { Toasts } from './toast.js';
import { TokenDialog } from './token-dialog.js';
import { tokenInHash, TokenStore } from './token-store.js';
import { Toolbar } from './toolbar.js';
import { VerdictBar } from './verdict-bar.js';
import { Wallboard } from './wallboard.js';

/** What the page exposes for browser tests and benchmarks (window.__yacron2). */
export interface AppHandle {
  readonly ctx: AppContext;
  /** Resolves after the next poll round has been applied to the page. */
  refresh(): Promise<void>;
}

function storage(kind: 'localStorage' | 'sessionStorage'): Storage | null {
  try {
    return window[kind];
  } catch {
    return null; // storage disabled by the browser
  }
}

export function startApp(root: HTMLElement, clock: Clock): AppHandle {
  const prefs = new PrefsStore(storage('localStorage'));
  const media = (query: string): boolean => window.matchMedia(query).matches;
  applyPrefs(document.documentElement, prefs.value, media);
  const store = new AppStore();
  const actions = new ActionRegistry();
  const toasts = new Toasts(clock);
  let tokenDialog: TokenDialog | null = null;
  const tokens = new TokenStore(storage('sessionStorage'));
  consumeTokenHash(tokens);
  const api = new ApiClient({
    tokens,
    onUnauthorized: () => tokenDialog?.onUnauthorized(tokens.get() !== null),
  });
  const firstJobs = takeFirstJobs(window.__yacron2FirstJobs, tokens.get());
  delete window.__yacron2FirstJobs;
  const poller = new Poller(api, store, clock, prefs.value.refreshMs, firstJobs, () =>
    afterPaint(clock),
  );
  const ticker = new Ticker(clock);

  // Navigation is late-bound: the components it drives (declared below) need the context first.

  const go = (route: Route): void => {
    const hash = formatHash(route);
    if (location.hash === hash || (hash === '' && location.hash === '')) applyRoute(route);
    else if (hash === '') {
      history.pushState(null, '', location.pathname + location.search);
      applyRoute(route);
    } else location.hash = hash;
  };
  const nav: Navigation = {
    openJob: (name, tab) => go({ kind: 'job', job: name, tab: tab ?? null }),
    openDagRun: (dag, runKey) => go({ kind: 'dag', dag, runKey }),
    openPanel: (id: string, options?: PanelOpenOptions) => panels.open(id, options),
    closeTop: () => {
      if (palette.element.open) {
        palette.element.close();
        return true;
      }
      if (panels.close()) return true;
      if (drawer.job !== null || dagDrawer.isOpen || wallboard.isOpen) {
        go({ kind: 'table' });
        return true;
      }
      return false;
    },
    selectedJob: () => table.selected,
  };

  const jobs: JobCommands = {
    async start(name) {
      try {
        await api.post(jobPath(name, 'start'));
        toasts.show(`Started ${name}`);
        void poller.refresh();
        return true;
      } catch (error) {
        toasts.show(error instanceof Error ? error.message : String(error), 'error');
        return false;
      }
    },
    async cancel(name) {
      try {
        await api.post(jobPath(name, 'cancel'));
        toasts.show(`Cancelled ${name}`);
        void poller.refresh();
        return true;
      } catch (error) {
        toasts.show(error instanceof Error ? error.message : String(error), 'error');
        return false;
      }
    },
    async copyCommand(name) {
      const command = store.snapshot?.byName.get(name)?.job.command;
      if (command === undefined) return;
      const copied = await copyText(command);
      toasts.show(
        copied ? `Copied the command of ${name}` : 'Could not copy',
        copied ? 'info' : 'error',
      );
    },
  };

  const ctx: AppContext = {
    clock,
    api,
    store,
    prefs,
    tokens,
    poller,
    ticker,
    actions,
    nav,
    jobs,
    toast: (m, k) => toasts.show(m, k),
    ledger: new BrowserLedger(store, prefs, clock, () => LedgerDb.open()),
    alerts: new RunAlerts(store, prefs, clock, (m, k) => toasts.show(m, k)),
  };

  const header = new Header(ctx);
  const verdict = new VerdictBar(ctx);
  const cluster = new ClusterBar(ctx);
  const table = new JobTable(ctx);
  const toolbar = new Toolbar(ctx, (text) => table.setText(text));
  const drawer = new Drawer(ctx);
  const dagCommands = new DagCommands(ctx);
  const dagCards = new DagCards(ctx, dagCommands);
  const dagDrawer = new DagRunDrawer(ctx, dagCommands, dagCards);
  const panels = new PanelHost(ctx);
  const wallboard = new Wallboard(ctx);
  const palette = new Palette(actions, store);
  tokenDialog = new TokenDialog(ctx);
  for (const panel of [
    timelinePanel,
    mitigatePanel,
    multiTailPanel,
    heatmapPanel,
    sandboxPanel,
    nodeHistoryPanel,
    clusterPanel,
    fleetPanel,
    statePanel,
    settingsPanel,
    helpPanel,
  ])
    panels.register(panel);

  const applyRoute = (route: Route): void => {
    if (route.kind !== 'dag') dagDrawer.close();
    if (route.kind === 'wallboard') {
      drawer.close();
      wallboard.open();
    } else {
      if (wallboard.isOpen) wallboard.close();
      if (route.kind === 'job') {
        drawer.open(route.job, route.tab ?? undefined);
        if (table.selected !== route.job) table.select(route.job);
      } else drawer.close();
      if (route.kind === 'dag') dagDrawer.open(route.dag, route.runKey);
    }
  };
  window.addEventListener('hashchange', () => applyRoute(parseHash(location.hash)));

  registerActions(ctx, { table, toolbar, palette, tokenDialog, wallboard });
  // The CRT overlay, the zen screensaver and the start-up self-test (docs/dashboard.md
  // "Screen: scale, font, CRT, zen, self-test").
  installScreen(ctx, { wallboard, storage: storage('localStorage') });
  // The failure alarm: the wallboard's escalation and the standing tone (docs/dashboard.md
  // "Alarm escalation").
  installAlarm(ctx, wallboard);

  root.replaceChildren(
    header.element,
    cluster.alert,
    cluster.element,
    verdict.element,
    h('main', { class: 'main', id: 'main' }, dagCards.element, toolbar.element, table.element),
    drawer.element,
    dagDrawer.element,
    wallboard.element,
    panels.element,
    palette.element,
    tokenDialog.element,
    toasts.element,
  );
  installShortcuts(document, actions, () => document.querySelector('dialog[open]') !== null);

  prefs.subscribe((next) => {
    applyPrefs(document.documentElement, next, media);
    poller.setInterval(next.refreshMs);
  });
  for (const query of ['(prefers-color-scheme: light)', '(prefers-reduced-motion: reduce)']) {
    window
      .matchMedia(query)
      .addEventListener('change', () => applyPrefs(document.documentElement, prefs.value, media));
  }

  applyRoute(parseHash(location.hash));
  void poller.refresh();
  return { ctx, refresh: () => poller.refresh() };
}

interface ActionTargets {
  readonly table: JobTable;
  readonly toolbar: Toolbar;
  readonly palette: Palette;
  readonly tokenDialog: TokenDialog;
  readonly wallboard: Wallboard;
}

function registerActions(ctx: AppContext, t: ActionTargets): void {
  const { actions, prefs, nav } = ctx;
  const selected = (run: (job: string) => void) => () => {
    const job = t.table.selected;
    if (job !== null) run(job);
  };
  actions.add({
    id: 'palette',
    label: 'Open the command palette',
    keys: 'Ctrl-K',
    run: () => t.palette.open(),
  });
  actions.add({
    id: 'help',
    label: 'Show keyboard shortcuts',
    keys: '?',
    run: () => nav.openPanel('help'),
  });
  actions.add({
    id: 'settings',
    label: 'Open settings',
    keys: ',',
    run: () => nav.openPanel('settings'),
  });
  actions.add({
    id: 'token',
    label: 'Set or clear the access token',
    run: () => t.tokenDialog.open(),
  });
  actions.add({
    id: 'wallboard',
    label: 'Wallboard mode',
    keys: 'w',
    run: () => (t.wallboard.isOpen ? nav.closeTop() : (location.hash = '#tv')),
  });
  actions.add({
    id: 'refresh',
    label: 'Refresh now',
    keys: 'g',
    run: () => void ctx.poller.refresh(),
  });
  actions.add({
    id: 'cycle-theme',
    label: 'Next theme',
    keys: 't',
    run: () =>
      prefs.update({ theme: THEMES[(THEMES.indexOf(prefs.value.theme) + 1) % THEMES.length]! }),
  });
  actions.add({
    id: 'toggle-mode',
    label: 'Toggle light / dark',
    keys: 'T',
    run: () =>
      prefs.update({
        mode: document.documentElement.dataset['mode'] === 'light' ? 'dark' : 'light',
      }),
  });
  actions.add({
    id: 'vision-cycle',
    label: 'Next colour-vision palette',
    run: () =>
      prefs.update({
        vision:
          prefs.value.vision === 'normal'
            ? 'red-green'
            : prefs.value.vision === 'red-green'
              ? 'blue-yellow'
              : 'normal',
      }),
  });
  actions.add({
    id: 'mode-system',
    label: 'Colour mode: follow the system',
    run: () => prefs.update({ mode: 'system' }),
  });
  actions.add({
    id: 'focus-filter',
    label: 'Filter jobs',
    keys: '/',
    run: () => t.toolbar.filter.focus(),
  });
  actions.add({
    id: 'select-next',
    label: 'Select the next job',
    keys: 'j',
    run: () => t.table.moveSelection(1),
  });
  actions.add({
    id: 'select-previous',
    label: 'Select the previous job',
    keys: 'k',
    run: () => t.table.moveSelection(-1),
  });
  actions.add({
    id: 'open-selected',
    label: 'Open the selected job',
    keys: 'Enter',
    run: selected((job) => nav.openJob(job)),
  });
  actions.add({
    id: 'run-selected',
    label: 'Run the selected job',
    keys: 'r',
    run: selected((job) => void ctx.jobs.start(job)),
  });
  actions.add({
    id: 'cancel-selected',
    label: 'Cancel the selected job',
    keys: 'x',
    run: selected((job) => void ctx.jobs.cancel(job)),
  });
  actions.add({
    id: 'copy-selected',
    label: "Copy the selected job's command",
    keys: 'c',
    run: selected((job) => void ctx.jobs.copyCommand(job)),
  });
  actions.add({ id: 'close', label: 'Close', keys: 'Esc', run: () => void nav.closeTop() });
  actions.add({
    id: 'tail-failing',
    label: 'Tail failing jobs',
    run: () => nav.openPanel('tail', { jobs: failingJobs(ctx).slice(0, 4) }),
  });
  actions.add({
    id: 'tail-running',
    label: 'Tail running jobs',
    run: () =>
      nav.openPanel('tail', {
        jobs: (ctx.store.snapshot?.rows ?? [])
          .filter((row) => row.job.running)
          .map((row) => row.name)
          .slice(0, 4),
      }),
  });
  actions.add({
    id: 'run-failing',
    label: 'Run every failing job',
    run: () => {
      const names = failingJobs(ctx).filter(
        (name) => !ctx.store.snapshot?.byName.get(name)?.job.running,
      );
      if (names.length === 0) {
        ctx.toast('No failing job to run');
        return;
      }
      void runStaggered(names, (job) => ctx.api.post(jobPath(job, 'start')), {
        clock: ctx.clock,
        staggerMs: STAGGER_MS,
        signal: new AbortController().signal,
        onResult: () => undefined,
      }).then((tally) => {
        ctx.toast(
          `Ran ${tally.ok} failing job${tally.ok === 1 ? '' : 's'}${tally.failed > 0 ? `, ${tally.failed} refused` : ''}`,
          tally.failed > 0 ? 'error' : 'info',
        );
        void ctx.poller.refresh();
      });
    },
  });
  // Run ledger, desktop notifications, audible cues (docs/dashboard.md "Run ledger, notifications and cues").
  actions.add({
    id: 'toggle-ledger',
    label: 'Toggle the run ledger (history kept in this browser)',
    run: () => {
      prefs.update({ ledger: !prefs.value.ledger });
      ctx.toast(prefs.value.ledger ? 'Run ledger on' : 'Run ledger off');
    },
  });
  actions.add({
    id: 'toggle-notify',
    label: 'Toggle desktop notifications for failures',
    run: () => void ctx.alerts.setNotify(!prefs.value.notify),
  });
  actions.add({
    id: 'toggle-sound',
    label: 'Toggle audible cues',
    run: () => {
      ctx.alerts.setSound(!prefs.value.sound);
      ctx.toast(prefs.value.sound ? 'Audible cues on' : 'Audible cues off');
    },
  });
  actions.addJobAction({
    id: 'logs',
    label: (job) => `Logs: ${job}`,
    run: (job) => nav.openJob(job, 'logs'),
  });
  actions.addJobAction({
    id: 'run',
    label: (job) => `Run ${job} now`,
    run: (job) => void ctx.jobs.start(job),
  });
  actions.addJobAction({
    id: 'cancel',
    label: (job) => `Cancel ${job}`,
    run: (job) => void ctx.jobs.cancel(job),
  });
  actions.addJobAction({
    id: 'copy',
    label: (job) => `Copy command of ${job}`,
    run: (job) => void ctx.jobs.copyCommand(job),
  });
  actions.addJobAction({
    id: 'schedule',
    label: (job) => `Schedule of ${job}`,
    run: (job) => nav.openJob(job, 'schedule'),
  });
  actions.addJobAction({
    id: 'history',
    label: (job) => `History of ${job}`,
    run: (job) => nav.openJob(job, 'history'),
  });
  actions.addJobAction({
    id: 'tail',
    label: (job) => `Tail ${job}`,
    run: (job) => nav.openPanel('tail', { jobs: [job] }),
  });
}

/**
 * `#token=<t>` (the URL `npm start` prints): the token moves into the tab's storage and leaves
 * the address bar, so it is neither bookmarked nor shown over a shoulder.
 */
function consumeTokenHash(tokens: TokenStore): void {
  const token = tokenInHash(location.hash);
  if (token === null) return;
  tokens.set(token);
  history.replaceState(null, '', location.pathname + location.search);
}

function failingJobs(ctx: AppContext): string[] {
  return (ctx.store.snapshot?.rows ?? [])
    .filter((row) => row.job.last_run?.outcome === 'failure')
    .map((row) => row.name);
}
