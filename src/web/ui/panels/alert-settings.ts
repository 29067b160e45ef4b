// The settings rows of the run ledger, desktop notifications and audible cues (docs/dashboard.md
// "Run ledger, notifications and cues"): three switches, the cue volume, and while the ledger
// is on its storage line with Export and Purge. The rows follow the preferences (a refused
// permission turns its switch back off) and the ledger's changes while the panel is open.
import { formatBytes } from '../../model/format.js';
import { VOLUMES } from '../../model/cues.js';
import { downloadText } from '../clipboard.js';
import type { AppContext } from '../context.js';
import { h, setText, uniqueId } from '../dom.js';
import type { Prefs } from '../prefs.js';

function toggle(
  label: string,
  hint: string,
  apply: (on: boolean) => void,
): { row: HTMLElement; input: HTMLInputElement; hint: HTMLElement } {
  const id = uniqueId('setting');
  const hintId = uniqueId('setting-hint');
  const input = h('input', { id, type: 'checkbox', class: 'switch', 'aria-describedby': hintId });
  input.addEventListener('change', () => apply(input.checked));
  const hintElement = h('small', { id: hintId, class: 'muted setting-hint' }, hint);
  const row = h(
    'div',
    { class: 'setting setting-toggle' },
    h('div', {}, h('label', { for: id }, label), hintElement),
    h('span', {}, input),
  );
  return { row, input, hint: hintElement };
}

/** The rows, and what stops them following changes when the panel closes. */
export function alertSettingRows(ctx: AppContext): {
  readonly rows: readonly HTMLElement[];
  readonly dispose: () => void;
} {
  const notify = toggle(
    'Desktop notifications',
    'a notification when a job fails (the browser asks for permission)',
    (on) => void ctx.alerts.setNotify(on),
  );
  const sound = toggle(
    'Audible cues',
    'a tone when a run ends: a buzz on failure, an alarm until acknowledged (a)',
    (on) => ctx.alerts.setSound(on),
  );
  const escalate = toggle(
    'Alarm escalation',
    'while a failure is unacknowledged (a): the wallboard reddens and shows an incident timer',
    (on) => ctx.prefs.update({ escalate: on }),
  );
  const volumeId = uniqueId('setting');
  const volume = h(
    'select',
    { id: volumeId, class: 'select' },
    ...VOLUMES.map((value) => h('option', { value: String(value) }, `${value}%`)),
  );
  volume.addEventListener('change', () => {
    const value = VOLUMES.find((choice) => String(choice) === volume.value);
    if (value === undefined) return;
    ctx.prefs.update({ volume: value });
    ctx.alerts.preview();
  });
  const ledger = toggle(
    'Run ledger',
    'keep long-term run history in this browser (IndexedDB); never sent to the daemon',
    (on) => ctx.prefs.update({ ledger: on }),
  );
  const stat = h('span', { class: 'ledger-stat', role: 'status' });
  const storage = h(
    'div',
    { class: 'setting ledger-storage' },
    h('span', {}, 'Ledger storage'),
    h(
      'span',
      { class: 'ledger-actions' },
      stat,
      h(
        'button',
        {
          type: 'button',
          class: 'btn',
          onclick: () => {
            downloadText('yacron2-run-ledger.json', ctx.ledger.exportJson());
            ctx.toast(`Exported ${ctx.ledger.summary().runs} runs`);
          },
        },
        'Export',
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'btn',
          onclick: () => void ctx.ledger.purge().then(() => ctx.toast('Run ledger purged')),
        },
        'Purge',
      ),
    ),
  );

  const sync = (prefs: Prefs): void => {
    notify.input.checked = prefs.notify;
    const permission = ctx.alerts.permission;
    setText(
      notify.hint,
      permission === 'unsupported'
        ? 'this browser cannot show notifications'
        : permission === 'denied'
          ? 'blocked for this page in the browser’s site settings'
          : 'a notification when a job fails (the browser asks for permission)',
    );
    sound.input.checked = prefs.sound;
    volume.value = String(prefs.volume);
    volume.disabled = !prefs.sound;
    escalate.input.checked = prefs.escalate;
    ledger.input.checked = prefs.ledger;
    syncLedger();
  };
  const syncLedger = (): void => {
    storage.hidden = ctx.ledger.state === 'off';
    const summary = ctx.ledger.summary();
    setText(
      stat,
      ctx.ledger.state === 'loading'
        ? 'reading…'
        : `${summary.runs} run${summary.runs === 1 ? '' : 's'} · ${summary.jobs} job${
            summary.jobs === 1 ? '' : 's'
          } · ~${formatBytes(summary.bytes)}${summary.stored ? '' : ' · not stored (no IndexedDB)'}`,
    );
  };
  const offPrefs = ctx.prefs.subscribe(sync);
  const offLedger = ctx.ledger.subscribe(syncLedger);
  sync(ctx.prefs.value);
  return {
    rows: [
      notify.row,
      sound.row,
      h('div', { class: 'setting' }, h('label', { for: volumeId }, 'Cue volume'), volume),
      escalate.row,
      ledger.row,
      storage,
    ],
    dispose: () => {
      offPrefs();
      offLedger();
    },
  };
}
