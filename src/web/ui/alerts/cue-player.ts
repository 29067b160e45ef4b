// Plays the audible cues (docs/dashboard.md "Run ledger, notifications and cues") with WebAudio:
// oscillators and gain envelopes, no audio files. Browsers keep an AudioContext suspended until
// the page had a user gesture, so the context is made or resumed in one: turning cues on, or
// the first click or key press after a reload with cues already on.
// Must not: throw — without WebAudio a cue is silence.
import { CUES, toneGain, type CueKind, type Volume } from '../../model/cues.js';

export class CuePlayer {
  #context: AudioContext | null = null;

  /** Makes or resumes the context; call from a user gesture. */
  unlock(): void {
    try {
      this.#context ??= new AudioContext();
      if (this.#context.state === 'suspended') void this.#context.resume().catch(() => undefined);
    } catch {
      this.#context = null;
    }
  }

  /** Lets the audio device sleep while cues are off. */
  suspend(): void {
    if (this.#context?.state === 'running') void this.#context.suspend().catch(() => undefined);
  }

  play(kind: CueKind, volume: Volume): void {
    const context = this.#context;
    if (context === null || context.state !== 'running') return;
    try {
      let at = context.currentTime + 0.01;
      for (const tone of CUES[kind]) {
        at += tone.gapBefore ?? 0;
        const oscillator = context.createOscillator();
        const gain = context.createGain();
        oscillator.type = tone.type;
        oscillator.frequency.setValueAtTime(tone.hz, at);
        if (tone.endHz !== undefined)
          oscillator.frequency.linearRampToValueAtTime(tone.endHz, at + tone.seconds);
        gain.gain.setValueAtTime(0.0001, at);
        gain.gain.linearRampToValueAtTime(Math.max(0.0002, toneGain(tone, volume)), at + 0.008);
        gain.gain.exponentialRampToValueAtTime(0.0001, at + tone.seconds);
        oscillator.connect(gain).connect(context.destination);
        oscillator.start(at);
        oscillator.stop(at + tone.seconds + 0.03);
        at += tone.seconds;
      }
    } catch {
      // A context closed under us: no cue.
    }
  }
}
