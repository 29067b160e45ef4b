// The wallboard's alarm escalation (docs/dashboard.md "Alarm escalation"): while a failure goes
// unacknowledged and the `escalate` setting is on, a red vignette over the wallboard and an
// incident strip above its tiles with the time since the first unacknowledged failure and an
// Acknowledge button (the `a` key does the same). Once acknowledged the vignette goes and the
// strip stays, muted, while jobs still fail. installAlarm wires the alarm, this view and the
// `alarm-ack` action; app.ts calls it once the wallboard exists.
import type { AlarmState } from '../../model/alarm.js';
import { formatWholeSeconds } from '../../model/format.js';
import type { AppContext } from '../context.js';
import { h, setText } from '../dom.js';
import type { Wallboard } from '../wallboard.js';
import { StandingAlarm } from './standing-alarm.js';

class AlarmEscalation {
  readonly #vignette: HTMLElement;
  readonly #strip: HTMLElement;
  readonly #text: HTMLElement;
  readonly #button: HTMLButtonElement;

  constructor(wallboard: Wallboard, onAcknowledge: () => void) {
    this.#vignette = h('div', { class: 'tv-alarm', 'aria-hidden': 'true', hidden: true });
    this.#text = h('span', { class: 'tv-incident-time' });
    this.#button = h(
      'button',
      { class: 'btn btn-small', type: 'button', onclick: onAcknowledge },
      'Acknowledge (a)',
    );
    this.#strip = h('div', { class: 'tv-incident', hidden: true }, this.#text, this.#button);
    const grid = wallboard.element.querySelector('.tv-grid');
    wallboard.element.insertBefore(this.#strip, grid);
    wallboard.element.append(this.#vignette);
  }

  render(state: AlarmState, nowMs: number, escalate: boolean): void {
    const shown = escalate && state.kind !== 'idle';
    this.#strip.hidden = !shown;
    this.#vignette.hidden = !(escalate && state.kind === 'active');
    if (!shown) return;
    const active = state.kind === 'active';
    this.#strip.classList.toggle('acknowledged', !active);
    this.#button.hidden = !active;
    const age = formatWholeSeconds((nowMs - state.sinceMs) / 1000);
    const count = active ? state.unacknowledged.length : state.failing;
    const failures = `${count} failing job${count === 1 ? '' : 's'}`;
    setText(
      this.#text,
      active
        ? `INCIDENT +${age} · ${failures} unacknowledged`
        : `INCIDENT +${age} · ${failures} · acknowledged`,
    );
  }
}

export function installAlarm(ctx: AppContext, wallboard: Wallboard): StandingAlarm {
  const alarm = new StandingAlarm(ctx.store, ctx.ticker, ctx.clock, () => ctx.alerts.playAlarm());
  const ack = (): void => {
    if (alarm.acknowledge()) ctx.toast('Alarm acknowledged: quiet until a new failure');
  };
  const view = new AlarmEscalation(wallboard, ack);
  const render = (): void => view.render(alarm.state, ctx.clock.now(), ctx.prefs.value.escalate);
  alarm.subscribe((state, nowMs) => view.render(state, nowMs, ctx.prefs.value.escalate));
  ctx.prefs.subscribe(render);
  render();
  ctx.actions.add({
    id: 'alarm-ack',
    label: 'Acknowledge the failure alarm',
    keys: 'a',
    run: ack,
  });
  ctx.actions.add({
    id: 'escalate-toggle',
    label: 'Toggle the alarm escalation on the wallboard',
    run: () => {
      ctx.prefs.update({ escalate: !ctx.prefs.value.escalate });
      ctx.toast(`Alarm escalation ${ctx.prefs.value.escalate ? 'on' : 'off'}`);
    },
  });
  return alarm;
}
