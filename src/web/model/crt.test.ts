import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crtEffects, crtUnavailableReason } from './crt.js';

describe('crtEffects', () => {
  it('shows what was asked for on a CRT theme', () => {
    assert.deepEqual(
      crtEffects({ theme: 'amber', effects: true, scanlines: true, reducedMotion: false }),
      { glow: true, scanlines: true, flicker: true },
    );
    assert.deepEqual(
      crtEffects({ theme: 'carolina', effects: false, scanlines: true, reducedMotion: false }),
      { glow: false, scanlines: true, flicker: false },
    );
  });

  it('shows nothing on the flat themes, and says why', () => {
    for (const theme of ['modern', 'standard']) {
      assert.deepEqual(
        crtEffects({ theme, effects: true, scanlines: true, reducedMotion: false }),
        { glow: false, scanlines: false, flicker: false },
      );
      assert.match(crtUnavailableReason(theme) ?? '', /flat/);
    }
    assert.equal(crtUnavailableReason('green'), null);
  });

  it('never flickers when motion is reduced', () => {
    assert.deepEqual(
      crtEffects({ theme: 'green', effects: true, scanlines: true, reducedMotion: true }),
      { glow: true, scanlines: true, flicker: false },
    );
  });
});
