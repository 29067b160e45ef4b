// Which CRT effects the page shows (docs/dashboard.md "Screen: scale, font, CRT, zen, self-test"):
// the glow, vignette and flicker of "CRT effects" and the scanlines are separate choices, both
// off unless asked for. The flat themes (Modern, Standard) have none, and the flicker never runs
// when motion is reduced (the setting or the system's). Pure.

/** The theme families drawn as flat screens: no CRT effects on them. */
export const FLAT_THEMES: readonly string[] = ['modern', 'standard'];

export interface CrtChoice {
  readonly theme: string;
  /** The "CRT effects" setting: glow, vignette and flicker. */
  readonly effects: boolean;
  readonly scanlines: boolean;
  readonly reducedMotion: boolean;
}

export interface CrtEffects {
  readonly glow: boolean;
  readonly scanlines: boolean;
  readonly flicker: boolean;
}

/** Why the CRT settings do nothing with this theme, or null when they apply. */
export function crtUnavailableReason(theme: string): string | null {
  return FLAT_THEMES.includes(theme)
    ? 'The Modern and Standard themes are flat screens: CRT effects need Carolina, Amber or Green.'
    : null;
}

export function crtEffects(choice: CrtChoice): CrtEffects {
  const allowed = crtUnavailableReason(choice.theme) === null;
  const glow = allowed && choice.effects;
  return {
    glow,
    scanlines: allowed && choice.scanlines,
    flicker: glow && !choice.reducedMotion,
  };
}
