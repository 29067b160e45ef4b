// The wallboard's zen screensaver (docs/dashboard.md "Zen screensaver"): when the wallboard has
// been open and calm (no failing job, no CLUSTER ALERT, data not stale) with no input for the
// idle period, it dims into an all-clear field; any input, a failure, an alert or stale data
// ends it. The state machine, the summary line and the field's dot layout. Pure.
// Must not: read the clock or the DOM (callers pass `nowMs` and the facts).

/** What stops the screensaver, checked on every tick and every poll. */
export interface ZenFacts {
  /** The setting. */
  readonly enabled: boolean;
  readonly wallboardOpen: boolean;
  readonly stale: boolean;
  readonly failing: number;
  readonly clusterAlert: boolean;
  readonly idleMs: number;
}

export type ZenState =
  /** Not allowed now (off, wallboard closed, trouble): the idle period has not started. */
  | { readonly kind: 'blocked' }
  /** Calm, counting the idle period from the later of calm and the last input. */
  | { readonly kind: 'idle'; readonly sinceMs: number }
  | { readonly kind: 'on'; readonly sinceMs: number };

export const ZEN_BLOCKED: ZenState = { kind: 'blocked' };

function calm(facts: ZenFacts): boolean {
  return (
    facts.enabled &&
    facts.wallboardOpen &&
    !facts.stale &&
    facts.failing === 0 &&
    !facts.clusterAlert
  );
}

/** The state after a tick or a poll at `nowMs`. */
export function zenStep(state: ZenState, facts: ZenFacts, nowMs: number): ZenState {
  if (!calm(facts)) return ZEN_BLOCKED;
  switch (state.kind) {
    case 'blocked':
      return { kind: 'idle', sinceMs: nowMs };
    case 'idle':
      return nowMs - state.sinceMs >= facts.idleMs ? { kind: 'on', sinceMs: nowMs } : state;
    case 'on':
      return state;
  }
}

/** Any input (key, pointer, wheel, touch): wakes the screensaver and restarts the idle period. */
export function zenInput(state: ZenState, nowMs: number): ZenState {
  return state.kind === 'blocked' ? state : { kind: 'idle', sinceMs: nowMs };
}

/** A job as the field sees it. */
export interface ZenJob {
  readonly name: string;
  readonly enabled: boolean;
  readonly nextFireMs: number | null;
}

export interface ZenSummary {
  /** Enabled jobs. */
  readonly armed: number;
  /** The next job to fire (ties: the first name), or null. */
  readonly next: { readonly name: string; readonly inMs: number } | null;
}

export function zenSummary(jobs: readonly ZenJob[], nowMs: number): ZenSummary {
  let armed = 0;
  let next: { name: string; atMs: number } | null = null;
  for (const job of jobs) {
    if (!job.enabled) continue;
    armed += 1;
    const at = job.nextFireMs;
    if (at === null || at < nowMs) continue;
    if (next === null || at < next.atMs || (at === next.atMs && job.name < next.name))
      next = { name: job.name, atMs: at };
  }
  return { armed, next: next === null ? null : { name: next.name, inMs: next.atMs - nowMs } };
}

/** At most this many dots in the field (one per enabled job). */
export const ZEN_MAX_DOTS = 240;

/** A dot lights up from this long before its job's fire to this long after. */
const DUE_BEFORE_MS = 1000;
const DUE_AFTER_MS = 1500;

export function zenDue(nextFireMs: number | null, nowMs: number): boolean {
  if (nextFireMs === null) return false;
  const delta = nextFireMs - nowMs;
  return delta <= DUE_BEFORE_MS && delta >= -DUE_AFTER_MS;
}

/** FNV-1a of a string (32 bits): a stable scatter without randomness. */
function hash(text: string): number {
  let value = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    value ^= text.charCodeAt(i);
    value = Math.imul(value, 0x01000193);
  }
  return value >>> 0;
}

/** Where a job's dot sits in the field, in percent of its width and height (0–99.9). */
export function zenDotPosition(name: string): { readonly x: number; readonly y: number } {
  return { x: (hash(name) % 1000) / 10, y: (hash(`${name}\u0000y`) % 1000) / 10 };
}
