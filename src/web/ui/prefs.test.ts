import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_PREFS, parsePrefs } from './prefs.js';

describe('parsePrefs', () => {
  it('keeps valid stored values', () => {
    const prefs = parsePrefs(
      JSON.stringify({
        theme: 'amber',
        mode: 'light',
        refreshMs: 5000,
        columns: ['rate', 'tz'],
        sort: { key: 'last', descending: true },
      }),
    );
    assert.equal(prefs.theme, 'amber');
    assert.equal(prefs.mode, 'light');
    assert.equal(prefs.refreshMs, 5000);
    assert.deepEqual(prefs.columns, ['tz', 'rate']);
    assert.deepEqual(prefs.sort, { key: 'last', descending: true });
  });

  it('falls back to defaults for corrupt or hostile values', () => {
    assert.deepEqual(parsePrefs('{not json'), DEFAULT_PREFS);
    assert.deepEqual(parsePrefs(null), DEFAULT_PREFS);
    const prefs = parsePrefs(
      JSON.stringify({
        theme: '<script>',
        refreshMs: 1,
        columns: 'all',
        sort: { key: 'pwned' },
        recentExpressions: ['x'.repeat(500), '* * * * *', 3],
      }),
    );
    assert.equal(prefs.theme, 'carolina');
    assert.equal(prefs.refreshMs, 2000);
    assert.deepEqual(prefs.columns, []);
    assert.equal(prefs.sort.key, 'status');
    assert.deepEqual(prefs.recentExpressions, ['* * * * *']);
  });

  // Run ledger, desktop notifications, audible cues.
  it('keeps the ledger, notification and cue choices, off by default', () => {
    assert.equal(DEFAULT_PREFS.ledger, false);
    assert.equal(DEFAULT_PREFS.notify, false);
    assert.equal(DEFAULT_PREFS.sound, false);
    const prefs = parsePrefs(
      JSON.stringify({ ledger: true, notify: true, sound: true, volume: 75 }),
    );
    assert.deepEqual(
      [prefs.ledger, prefs.notify, prefs.sound, prefs.volume],
      [true, true, true, 75],
    );
    const hostile = parsePrefs(
      JSON.stringify({ ledger: 'yes', notify: 1, sound: null, volume: 1000 }),
    );
    assert.deepEqual(
      [hostile.ledger, hostile.notify, hostile.sound, hostile.volume],
      [false, false, false, 50],
    );
  });
});

// Screen: UI scale and font, CRT effects, the wallboard's zen screensaver, the self-test.
describe('parsePrefs: screen preferences', () => {
  it('keeps valid choices', () => {
    const prefs = parsePrefs(
      JSON.stringify({
        uiScale: 125,
        font: 'mono',
        crt: true,
        scanlines: true,
        zen: false,
        zenIdleMs: 5000,
        selfTest: false,
      }),
    );
    assert.equal(prefs.uiScale, 125);
    assert.equal(prefs.font, 'mono');
    assert.equal(prefs.crt, true);
    assert.equal(prefs.scanlines, true);
    assert.equal(prefs.zen, false);
    assert.equal(prefs.zenIdleMs, 5000);
    assert.equal(prefs.selfTest, false);
  });

  it('falls back to the defaults for values it does not know', () => {
    const prefs = parsePrefs(
      JSON.stringify({
        uiScale: 400,
        font: 'comic',
        crt: 'yes',
        scanlines: 1,
        zen: null,
        zenIdleMs: 1,
        selfTest: 'false',
      }),
    );
    assert.equal(prefs.uiScale, 100);
    assert.equal(prefs.font, 'sans');
    assert.equal(prefs.crt, false);
    assert.equal(prefs.scanlines, false);
    assert.equal(prefs.zen, true);
    assert.equal(prefs.zenIdleMs, 30_000);
    assert.equal(prefs.selfTest, true);
    assert.equal(DEFAULT_PREFS.uiScale, 100);
  });
});

// Alarm escalation.
describe('parsePrefs: alarm escalation', () => {
  it('is on by default, kept when stored, a bad value falls back', () => {
    assert.equal(DEFAULT_PREFS.escalate, true);
    assert.equal(parsePrefs(JSON.stringify({ escalate: false })).escalate, false);
    assert.equal(parsePrefs(JSON.stringify({ escalate: 'no' })).escalate, true);
  });
});
