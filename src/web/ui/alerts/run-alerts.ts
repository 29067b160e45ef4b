// Desktop notifications and audible cues for finished runs (docs/dashboard.md "Run ledger,
// notifications and cues"). Every job snapshot goes through one FinishedRunWatch, whatever the
// preferences, so turning a feature on never replays what finished before; the failures become
// notifications through the NoticeGate (at most a few a minute) while `notify` is on and the
// browser granted the permission, and one cue per snapshot sounds while `sound` is on.
// Must not: ask for the notification permission other than from the viewer turning it on.
import type { Clock } from '../../../common/clock.js';
import type { JobWire } from '../../model/api-types.js';
import { cueFor } from '../../model/cues.js';
import { FinishedRunWatch, NoticeGate, type Notice } from '../../model/run-alerts.js';
import type { PrefsStore } from '../prefs.js';
import type { AppStore } from '../store.js';
import type { ToastKind } from '../toast.js';
import { CuePlayer } from './cue-player.js';

export type NotifyPermission = 'granted' | 'denied' | 'default' | 'unsupported';

function permission(): NotifyPermission {
  return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;
}

function show(notice: Notice): void {
  try {
    new Notification(notice.title, { body: notice.body, tag: notice.tag });
  } catch {
    // Some browsers allow notifications only from a service worker: nothing to show then.
  }
}

export class RunAlerts {
  readonly #prefs: PrefsStore;
  readonly #clock: Clock;
  readonly #toast: (message: string, kind?: ToastKind) => void;
  readonly #watch = new FinishedRunWatch();
  readonly #gate = new NoticeGate();
  readonly #player = new CuePlayer();

  constructor(
    store: AppStore,
    prefs: PrefsStore,
    clock: Clock,
    toast: (message: string, kind?: ToastKind) => void,
  ) {
    this.#prefs = prefs;
    this.#clock = clock;
    this.#toast = toast;
    store.on('snapshot', (snapshot) => this.#onJobs(snapshot.rows.map((row) => row.job)));
    // Cues left on across a reload: the context waits for the viewer's first gesture.
    const unlock = (): void => {
      document.removeEventListener('pointerdown', unlock, true);
      document.removeEventListener('keydown', unlock, true);
      if (this.#prefs.value.sound) this.#player.unlock();
    };
    document.addEventListener('pointerdown', unlock, true);
    document.addEventListener('keydown', unlock, true);
  }

  /** What the browser says about notifications for this page. */
  get permission(): NotifyPermission {
    return permission();
  }

  /** Turns notifications on (asking for the permission first) or off. */
  async setNotify(on: boolean): Promise<void> {
    if (!on) {
      this.#prefs.update({ notify: false });
      return;
    }
    const before = permission();
    if (before === 'unsupported') {
      this.#prefs.update({ notify: false });
      this.#toast('This browser cannot show desktop notifications', 'error');
      return;
    }
    const granted =
      before === 'granted' ||
      (await Notification.requestPermission().catch(() => 'denied' as const)) === 'granted';
    this.#prefs.update({ notify: granted });
    this.#toast(
      granted
        ? 'Desktop notifications on: a failing job raises one'
        : 'The browser refused notifications for this page (see its site settings)',
      granted ? 'info' : 'error',
    );
  }

  /** Turns cues on (a gesture: the audio starts, and a cue confirms it) or off. */
  setSound(on: boolean): void {
    this.#prefs.update({ sound: on });
    if (on) {
      this.#player.unlock();
      this.#player.play('ok', this.#prefs.value.volume);
    } else this.#player.suspend();
  }

  /** Plays the success cue at the current volume (the volume setting's preview). */
  preview(): void {
    if (!this.#prefs.value.sound) return;
    this.#player.unlock();
    this.#player.play('ok', this.#prefs.value.volume);
  }

  /** One tone of the standing alarm (docs/dashboard.md "Alarm escalation"), while cues are on. */
  playAlarm(): void {
    if (this.#prefs.value.sound) this.#player.play('alarm', this.#prefs.value.volume);
  }

  #onJobs(jobs: readonly JobWire[]): void {
    const finished = this.#watch.observe(jobs);
    if (finished.length === 0) return;
    const prefs = this.#prefs.value;
    if (prefs.notify && permission() === 'granted')
      for (const notice of this.#gate.plan(finished, this.#clock.now())) show(notice);
    if (prefs.sound) {
      const cue = cueFor(finished);
      if (cue !== null) this.#player.play(cue, prefs.volume);
    }
  }
}
