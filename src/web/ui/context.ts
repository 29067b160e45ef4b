// What every component is handed (one deps object, no globals): the clock, the API client, the
// stores, the poller and ticker, the action registry, and the page-level navigation calls.
import type { Clock } from '../../common/clock.js';
import type { ActionRegistry } from './actions.js';
import type { RunAlerts } from './alerts/run-alerts.js';
import type { ApiClient } from './api.js';
import type { Poller } from './poller.js';
import type { BrowserLedger } from './ledger/browser-ledger.js';
import type { PrefsStore } from './prefs.js';
import type { AppStore } from './store.js';
import type { Ticker } from './ticker.js';
import type { ToastKind } from './toast.js';
import type { TokenStore } from './token-store.js';

export interface Navigation {
  /** Opens the job drawer (and sets `#job/<name>`), optionally on a tab. */
  openJob(name: string, tab?: string): void;
  /** Opens a DAG run's drawer (`#dag/<name>/<runKey>`); null = the DAG's newest run. */
  openDagRun(dag: string, runKey: string | null): void;
  /** Opens a registered panel by id (`timeline`, `mitigate`, `tail`, ...). */
  openPanel(id: string, options?: PanelOpenOptions): void;
  /** Closes the topmost overlay (drawer, panel, wallboard); false when nothing was open. */
  closeTop(): boolean;
  /** The job the table has selected (j/k), or null. */
  selectedJob(): string | null;
}

export interface PanelOpenOptions {
  /** Jobs to act on (the multi-tail's presets, the mitigate console's set). */
  readonly jobs?: readonly string[];
}

export interface JobCommands {
  start(name: string): Promise<boolean>;
  cancel(name: string): Promise<boolean>;
  copyCommand(name: string): Promise<void>;
}

export interface AppContext {
  readonly clock: Clock;
  readonly api: ApiClient;
  readonly store: AppStore;
  readonly prefs: PrefsStore;
  readonly tokens: TokenStore;
  readonly poller: Poller;
  readonly ticker: Ticker;
  readonly actions: ActionRegistry;
  readonly nav: Navigation;
  readonly jobs: JobCommands;
  readonly toast: (message: string, kind?: ToastKind) => void;
  /** The browser run ledger (docs/dashboard.md "Run ledger, notifications and cues"). */
  readonly ledger: BrowserLedger;
  /** Desktop notifications and audible cues for finished runs. */
  readonly alerts: RunAlerts;
}
