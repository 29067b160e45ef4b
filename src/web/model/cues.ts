// The audible cues (docs/dashboard.md "Run ledger, notifications and cues"): which cue a poll's
// finished runs sound, and each cue as a few oscillator tones (no audio files: nothing to load,
// nothing for the page's security policy to allow). One cue per poll at most: a failure wins
// over a success, a cancelled run sounds none. Pure; ui/alerts/cue-player.ts plays them.
import type { FinishedRun } from './run-alerts.js';

/** `alarm` is the standing alarm's tone (docs/dashboard.md "Alarm escalation"). */
export type CueKind = 'ok' | 'fail' | 'alarm';

export type Wave = 'sine' | 'triangle' | 'square' | 'sawtooth';

export interface Tone {
  readonly type: Wave;
  /** Start frequency, Hz; `endHz` glides to it over the tone. */
  readonly hz: number;
  readonly endHz?: number;
  /** Seconds. */
  readonly seconds: number;
  /** Peak gain before the volume (0–1). */
  readonly gain: number;
  /** Silence before this tone, seconds. */
  readonly gapBefore?: number;
}

export const CUES: Readonly<Record<CueKind, readonly Tone[]>> = {
  ok: [{ type: 'sine', hz: 880, seconds: 0.07, gain: 0.5 }],
  fail: [
    { type: 'sawtooth', hz: 440, seconds: 0.13, gain: 0.9 },
    { type: 'sawtooth', hz: 210, seconds: 0.22, gain: 0.9, gapBefore: 0.02 },
  ],
  alarm: [
    { type: 'square', hz: 620, seconds: 0.1, gain: 0.6 },
    { type: 'square', hz: 620, seconds: 0.1, gain: 0.6, gapBefore: 0.09 },
  ],
};

export const VOLUMES = [25, 50, 75, 100] as const;
export type Volume = (typeof VOLUMES)[number];

/** Even at 100 % a cue stays well below full scale. */
const MASTER_GAIN = 0.16;

/** The gain of a tone at a volume (percent). */
export function toneGain(tone: Tone, volume: Volume): number {
  return MASTER_GAIN * (volume / 100) * tone.gain;
}

/** The cue for the runs that finished in one poll; null when none should sound. */
export function cueFor(finished: readonly FinishedRun[]): 'ok' | 'fail' | null {
  if (finished.some((run) => run.outcome === 'failure')) return 'fail';
  if (finished.some((run) => run.outcome === 'success')) return 'ok';
  return null;
}
