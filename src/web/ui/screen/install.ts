// The screen features on the page (docs/dashboard.md "Screen: scale, font, CRT, zen, self-test"):
// the CRT overlay, the wallboard's zen screensaver, the start-up self-test (started here when it
// is due) and their palette actions. app.ts calls installScreen once the components exist.
import { crtUnavailableReason } from '../../model/crt.js';
import type { AppContext } from '../context.js';
import { h } from '../dom.js';
import { UI_SCALES } from '../prefs.js';
import type { Wallboard } from '../wallboard.js';
import { SelfTestScreen } from './self-test-view.js';
import { ZenScreensaver } from './zen-view.js';

export interface Screen {
  readonly zen: ZenScreensaver;
  readonly selfTest: SelfTestScreen;
}

export function installScreen(
  ctx: AppContext,
  parts: { readonly wallboard: Wallboard; readonly storage: Storage | null },
): Screen {
  // The scanlines and vignette: drawn over everything, never in the way of a click.
  document.body.append(h('div', { class: 'crt', 'aria-hidden': 'true' }));
  const zen = new ZenScreensaver(ctx, parts.wallboard);
  const selfTest = new SelfTestScreen(ctx, parts.storage);
  document.body.append(selfTest.element);
  registerScreenActions(ctx, selfTest);
  selfTest.startIfDue();
  return { zen, selfTest };
}

function registerScreenActions(ctx: AppContext, selfTest: SelfTestScreen): void {
  const { actions, prefs, toast } = ctx;
  const onOff = (on: boolean): string => (on ? 'on' : 'off');
  actions.add({
    id: 'ui-scale-next',
    label: 'Next UI scale (100, 110, 125, 140%)',
    run: () => {
      const next = UI_SCALES[(UI_SCALES.indexOf(prefs.value.uiScale) + 1) % UI_SCALES.length]!;
      prefs.update({ uiScale: next });
      toast(`UI scale: ${next}%`);
    },
  });
  actions.add({
    id: 'font-toggle',
    label: 'Toggle the monospace font',
    run: () => {
      const font = prefs.value.font === 'mono' ? 'sans' : 'mono';
      prefs.update({ font });
      toast(`Font: ${font === 'mono' ? 'monospace' : 'sans-serif'}`);
    },
  });
  const crtToggle = (key: 'crt' | 'scanlines', name: string) => () => {
    const on = !prefs.value[key];
    prefs.update(key === 'crt' ? { crt: on } : { scanlines: on });
    const reason = crtUnavailableReason(prefs.value.theme);
    toast(`${name} ${onOff(on)}${on && reason !== null ? `, not shown: ${reason}` : ''}`);
  };
  actions.add({
    id: 'crt-toggle',
    label: 'Toggle CRT effects (glow, vignette, flicker)',
    run: crtToggle('crt', 'CRT effects'),
  });
  actions.add({
    id: 'scanlines-toggle',
    label: 'Toggle scanlines',
    run: crtToggle('scanlines', 'Scanlines'),
  });
  actions.add({
    id: 'zen-toggle',
    label: 'Toggle the wallboard zen screensaver',
    run: () => {
      prefs.update({ zen: !prefs.value.zen });
      toast(`Zen screensaver ${onOff(prefs.value.zen)}`);
    },
  });
  actions.add({
    id: 'self-test-toggle',
    label: 'Toggle the start-up self-test at load',
    run: () => {
      prefs.update({ selfTest: !prefs.value.selfTest });
      toast(`Start-up self-test ${onOff(prefs.value.selfTest)}`);
    },
  });
  actions.add({
    id: 'self-test-run',
    label: 'Run the start-up self-test',
    run: () => void selfTest.run(),
  });
}
