// The viewer's preferences, kept in localStorage (docs/dashboard.md "Themes, colour vision, motion,
// screen sizes"): theme, colour mode, colour-vision palette, density, motion, refresh interval,
// optional columns, sort and status filter. Every value read back is validated; a bad or missing
// one falls back to its default. Nothing here is ever sent to the daemon.
import { SORT_KEYS, STATUS_FILTERS, type SortSpec, type StatusFilter } from '../model/job-query.js';
import { VOLUMES, type Volume } from '../model/cues.js';

export const THEMES = ['carolina', 'amber', 'green', 'modern', 'standard'] as const;
export type Theme = (typeof THEMES)[number];
export const MODES = ['dark', 'light', 'system'] as const;
export type Mode = (typeof MODES)[number];
export const VISION = ['normal', 'red-green', 'blue-yellow'] as const;
export type Vision = (typeof VISION)[number];
export const DENSITIES = ['comfortable', 'compact'] as const;
export type Density = (typeof DENSITIES)[number];
export const MOTION = ['system', 'reduce'] as const;
export type Motion = (typeof MOTION)[number];
/** Poll intervals in ms; 0 = paused. */
export const REFRESH_CHOICES = [1000, 2000, 3000, 5000, 10_000, 0] as const;
export const OPTIONAL_COLUMNS = ['policy', 'tz', 'nextAt', 'rate'] as const;
export type OptionalColumn = (typeof OPTIONAL_COLUMNS)[number];
// Screen: UI scale and font, CRT effects, the wallboard's zen screensaver, the self-test.
/** UI scale choices in percent. */
export const UI_SCALES = [100, 110, 125, 140] as const;
export type UiScale = (typeof UI_SCALES)[number];
export const FONTS = ['sans', 'mono'] as const;
export type Font = (typeof FONTS)[number];
/** How long a calm wallboard waits before the zen screensaver, in ms. */
export const ZEN_IDLE_CHOICES = [5000, 10_000, 30_000, 60_000, 120_000] as const;
export type ZenIdle = (typeof ZEN_IDLE_CHOICES)[number];

export interface Prefs {
  readonly theme: Theme;
  readonly mode: Mode;
  readonly vision: Vision;
  readonly density: Density;
  readonly motion: Motion;
  readonly refreshMs: number;
  readonly columns: readonly OptionalColumn[];
  readonly sort: SortSpec;
  readonly statusFilter: StatusFilter;
  readonly recentExpressions: readonly string[];
  // Screen: UI scale and font, CRT effects, the wallboard's zen screensaver, the self-test.
  readonly uiScale: UiScale;
  readonly font: Font;
  /** CRT effects: glow, vignette and flicker (not on the flat themes). */
  readonly crt: boolean;
  readonly scanlines: boolean;
  readonly zen: boolean;
  readonly zenIdleMs: ZenIdle;
  readonly selfTest: boolean;
  // Run ledger, desktop notifications, audible cues (docs/dashboard.md "Run ledger, notifications and cues"):
  readonly ledger: boolean;
  readonly notify: boolean;
  readonly sound: boolean;
  readonly volume: Volume;
  // Alarm escalation: the wallboard's vignette and incident timer while a failure is unacknowledged.
  readonly escalate: boolean;
}

export const DEFAULT_PREFS: Prefs = {
  theme: 'carolina',
  mode: 'dark',
  vision: 'normal',
  density: 'comfortable',
  motion: 'system',
  refreshMs: 2000,
  columns: [],
  sort: { key: 'status', descending: false },
  statusFilter: 'all',
  recentExpressions: [],
  // Screen: UI scale and font, CRT effects, the wallboard's zen screensaver, the self-test.
  uiScale: 100,
  font: 'sans',
  crt: false,
  scanlines: false,
  zen: true,
  zenIdleMs: 30_000,
  selfTest: true,
  // Run ledger, desktop notifications, audible cues: all off until the viewer turns them on.
  ledger: false,
  notify: false,
  sound: false,
  volume: 50,
  // Alarm escalation: on, as in the reference.
  escalate: true,
};

const STORAGE_KEY = 'yacron2.dashboard.prefs';

function oneOf<T extends string | number>(choices: readonly T[], value: unknown, fallback: T): T {
  return choices.includes(value as T) ? (value as T) : fallback;
}

/** Parses stored JSON, keeping only valid values. */
export function parsePrefs(text: string | null): Prefs {
  let raw: Record<string, unknown> = {};
  try {
    const parsed: unknown = text === null ? {} : JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object') raw = parsed as Record<string, unknown>;
  } catch {
    // A corrupt entry: defaults.
  }
  const d = DEFAULT_PREFS;
  const sort = raw['sort'] as { key?: unknown; descending?: unknown } | undefined;
  return {
    theme: oneOf(THEMES, raw['theme'], d.theme),
    mode: oneOf(MODES, raw['mode'], d.mode),
    vision: oneOf(VISION, raw['vision'], d.vision),
    density: oneOf(DENSITIES, raw['density'], d.density),
    motion: oneOf(MOTION, raw['motion'], d.motion),
    refreshMs: oneOf(REFRESH_CHOICES, raw['refreshMs'], 2000),
    columns: Array.isArray(raw['columns'])
      ? OPTIONAL_COLUMNS.filter((column) => (raw['columns'] as unknown[]).includes(column))
      : d.columns,
    sort:
      sort && typeof sort === 'object'
        ? { key: oneOf(SORT_KEYS, sort.key, d.sort.key), descending: sort.descending === true }
        : d.sort,
    statusFilter: oneOf(STATUS_FILTERS, raw['statusFilter'], d.statusFilter),
    recentExpressions: Array.isArray(raw['recentExpressions'])
      ? (raw['recentExpressions'] as unknown[])
          .filter((e): e is string => typeof e === 'string' && e.length <= 200)
          .slice(0, 10)
      : d.recentExpressions,
    // Screen: UI scale and font, CRT effects, the wallboard's zen screensaver, the self-test.
    uiScale: oneOf(UI_SCALES, raw['uiScale'], d.uiScale),
    font: oneOf(FONTS, raw['font'], d.font),
    crt: typeof raw['crt'] === 'boolean' ? raw['crt'] : d.crt,
    scanlines: typeof raw['scanlines'] === 'boolean' ? raw['scanlines'] : d.scanlines,
    zen: typeof raw['zen'] === 'boolean' ? raw['zen'] : d.zen,
    zenIdleMs: oneOf(ZEN_IDLE_CHOICES, raw['zenIdleMs'], d.zenIdleMs),
    selfTest: typeof raw['selfTest'] === 'boolean' ? raw['selfTest'] : d.selfTest,
    // Run ledger, desktop notifications, audible cues.
    ledger: raw['ledger'] === true,
    notify: raw['notify'] === true,
    sound: raw['sound'] === true,
    volume: oneOf(VOLUMES, raw['volume'], d.volume),
    // Alarm escalation.
    escalate: typeof raw['escalate'] === 'boolean' ? raw['escalate'] : d.escalate,
  };
}

/** Preferences with change notification; storage failures (private mode, quota) are ignored. */
export class PrefsStore {
  #prefs: Prefs;
  readonly #storage: Storage | null;
  readonly #listeners = new Set<(prefs: Prefs) => void>();

  constructor(storage: Storage | null) {
    this.#storage = storage;
    let text: string | null = null;
    try {
      text = storage?.getItem(STORAGE_KEY) ?? null;
    } catch {
      text = null;
    }
    this.#prefs = parsePrefs(text);
  }

  get value(): Prefs {
    return this.#prefs;
  }

  update(change: Partial<Prefs>): void {
    this.#prefs = { ...this.#prefs, ...change };
    try {
      this.#storage?.setItem(STORAGE_KEY, JSON.stringify(this.#prefs));
    } catch {
      // Not persisted; the page still uses the new value.
    }
    for (const listener of this.#listeners) listener(this.#prefs);
  }

  subscribe(listener: (prefs: Prefs) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
