// The settings rows of the screen preferences (docs/dashboard.md "Screen: scale, font, CRT, zen,
// self-test"): UI scale, font, CRT effects and scanlines (disabled, with the reason, on the flat
// themes), the wallboard's zen screensaver and its idle time, and the start-up self-test. The
// settings panel appends them after its own rows.
import { crtUnavailableReason } from '../../model/crt.js';
import type { AppContext } from '../context.js';
import { h, setText, uniqueId } from '../dom.js';
import { FONTS, UI_SCALES, ZEN_IDLE_CHOICES, type Prefs } from '../prefs.js';
import { selectSetting } from '../panels/setting-controls.js';

const FONT_LABELS: Readonly<Record<(typeof FONTS)[number], string>> = {
  sans: 'Sans-serif',
  mono: 'Monospace (logs and commands are always monospace)',
};

function zenIdleLabel(ms: number): string {
  return ms < 60_000 ? `${ms / 1000} s` : `${ms / 60_000} min`;
}

interface Check {
  readonly row: HTMLElement;
  readonly box: HTMLInputElement;
  readonly note: HTMLElement;
}

function check(label: string, checked: boolean, apply: (on: boolean) => void): Check {
  const id = uniqueId('setting');
  const noteId = uniqueId('setting-note');
  const box = h('input', { id, type: 'checkbox', 'aria-describedby': noteId });
  box.checked = checked;
  box.addEventListener('change', () => apply(box.checked));
  const note = h('p', { id: noteId, class: 'setting-note', hidden: true });
  const row = h(
    'div',
    { class: 'setting setting-check' },
    h('label', { for: id }, label),
    box,
    note,
  );
  return { row, box, note };
}

/** The rows; they follow preference changes made elsewhere while the panel is open. */
export function screenSettingRows(ctx: AppContext): HTMLElement[] {
  const { prefs } = ctx;
  const p = prefs.value;
  const crt = check('CRT effects (glow, vignette, flicker)', p.crt, (on) =>
    prefs.update({ crt: on }),
  );
  const scanlines = check('Scanlines', p.scanlines, (on) => prefs.update({ scanlines: on }));
  const zen = check('Wallboard zen screensaver', p.zen, (on) => prefs.update({ zen: on }));
  const selfTest = check('Start-up self-test (at most every 12 hours)', p.selfTest, (on) =>
    prefs.update({ selfTest: on }),
  );
  setText(
    selfTest.note,
    'Skipped when motion is reduced. The palette runs it now: "Run the start-up self-test".',
  );
  selfTest.note.hidden = false;
  const sync = (next: Prefs): void => {
    const reason = crtUnavailableReason(next.theme);
    for (const { box, note } of [crt, scanlines]) {
      box.disabled = reason !== null;
      note.hidden = reason === null;
      setText(note, reason ?? '');
    }
    crt.box.checked = next.crt;
    scanlines.box.checked = next.scanlines;
    zen.box.checked = next.zen;
    selfTest.box.checked = next.selfTest;
  };
  sync(p);
  const scale = selectSetting(
    'UI scale',
    UI_SCALES,
    p.uiScale,
    (value) => `${value}%`,
    (uiScale) => prefs.update({ uiScale }),
  );
  const rows = [
    scale,
    selectSetting(
      'Font',
      FONTS,
      p.font,
      (value) => FONT_LABELS[value],
      (font) => prefs.update({ font }),
    ),
    crt.row,
    scanlines.row,
    zen.row,
    selectSetting(
      'Zen after the wallboard is idle for',
      ZEN_IDLE_CHOICES,
      p.zenIdleMs,
      zenIdleLabel,
      (zenIdleMs) => prefs.update({ zenIdleMs }),
    ),
    selfTest.row,
  ];
  // Follows the theme select above (the CRT rows enable or disable) until the panel closes (its
  // dialog's close), or until the rows are replaced by another panel.
  const unsubscribe = prefs.subscribe((next) => {
    if (!scale.isConnected) {
      unsubscribe();
      return;
    }
    sync(next);
  });
  queueMicrotask(() =>
    scale.closest('dialog')?.addEventListener('close', unsubscribe, { once: true }),
  );
  return rows;
}
