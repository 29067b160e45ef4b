// Zone offsets: the cached transition lists agree with Intl, and unknown zones fail with
// YC_ERR_TIMEZONE_UNKNOWN.
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { isYacronError } from '../common/index.js';
import { intlOffsetMs, intlTransitions } from './intl-reference.test.js';
import {
  assertTimezone,
  displayTimezoneName,
  localTimezone,
  zoneRulesFor,
} from './zone-offsets.js';

const HOUR_MS = 3_600_000;

void describe('zoneRulesFor().offsetAt()', () => {
  for (const zone of [
    'America/New_York',
    'Europe/Berlin',
    'Australia/Lord_Howe',
    'Asia/Kathmandu',
    'America/Santiago',
  ]) {
    void it(`agrees with Intl every 5 hours through 2025-2027 in ${zone}`, () => {
      const rules = zoneRulesFor(zone);
      for (let t = Date.UTC(2025, 0, 1); t < Date.UTC(2028, 0, 1); t += 5 * HOUR_MS) {
        assert.equal(rules.offsetAt(t), intlOffsetMs(zone, t), new Date(t).toISOString());
      }
    });

    void it(`switches exactly at each 2026 transition in ${zone}`, () => {
      const rules = zoneRulesFor(zone);
      for (const at of intlTransitions(zone, 2026)) {
        assert.equal(rules.offsetAt(at - 1000), intlOffsetMs(zone, at - 1000));
        assert.equal(rules.offsetAt(at), intlOffsetMs(zone, at));
        assert.equal(rules.lastTransitionAtOrBefore(at)?.atMs, at);
        assert.equal(rules.firstTransitionAfter(at - 1000)?.atMs, at);
      }
    });
  }

  void it('knows New York 2026: EST, EDT from 2026-03-08T07:00Z, EST again from 2026-11-01T06:00Z', () => {
    const rules = zoneRulesFor('America/New_York');
    assert.equal(rules.offsetAt(Date.parse('2026-01-15T00:00:00Z')), -5 * HOUR_MS);
    assert.equal(rules.offsetAt(Date.parse('2026-03-08T06:59:59Z')), -5 * HOUR_MS);
    assert.equal(rules.offsetAt(Date.parse('2026-03-08T07:00:00Z')), -4 * HOUR_MS);
    assert.equal(rules.offsetAt(Date.parse('2026-11-01T05:59:59Z')), -4 * HOUR_MS);
    assert.equal(rules.offsetAt(Date.parse('2026-11-01T06:00:00Z')), -5 * HOUR_MS);
    assert.deepEqual(rules.lastTransitionAtOrBefore(Date.parse('2026-11-01T06:30:00Z')), {
      atMs: Date.parse('2026-11-01T06:00:00Z'),
      offsetBeforeMs: -4 * HOUR_MS,
      offsetAfterMs: -5 * HOUR_MS,
    });
  });

  void it('keeps offsets with seconds (Monrovia mean time before 1972)', () => {
    const rules = zoneRulesFor('Africa/Monrovia');
    assert.equal(rules.offsetAt(Date.parse('1971-06-01T00:00:00Z')), -(44 * 60 + 30) * 1000);
  });

  void it('treats UTC as a fixed zone with no transitions', () => {
    const rules = zoneRulesFor('UTC');
    assert.equal(rules.isUtc, true);
    assert.equal(rules.offsetAt(Date.parse('2026-07-01T00:00:00Z')), 0);
    assert.equal(rules.lastTransitionAtOrBefore(Date.parse('2026-07-01T00:00:00Z')), undefined);
  });

  void it('shares one cache between a zone and its aliases', () => {
    assert.equal(zoneRulesFor('US/Eastern'), zoneRulesFor('America/New_York'));
    assert.equal(zoneRulesFor('america/new_york'), zoneRulesFor('America/New_York'));
  });
});

void describe('zone names without a formatter', () => {
  // zoneRulesFor() trusts these facts to validate names without building an Intl formatter.
  void it('every zone Intl lists resolves to itself', () => {
    const moved = Intl.supportedValuesOf('timeZone').filter(
      (zone) =>
        new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone !== zone,
    );
    assert.deepEqual(moved, []);
  });

  void it('every UTC alias resolves to UTC, in any letter case', () => {
    for (const alias of ['Etc/UTC', 'GMT', 'Etc/GMT', 'Zulu', 'UCT', 'Etc/Greenwich', 'GMT+0']) {
      for (const name of [alias, alias.toLowerCase(), alias.toUpperCase()]) {
        assert.equal(
          new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone,
          'UTC',
          name,
        );
        const rules = zoneRulesFor(name);
        assert.equal(rules, zoneRulesFor('UTC'), name);
        assert.equal(rules.isUtc, true);
      }
    }
  });

  void it('resolves listed names, their case variants and aliases to the same rules', () => {
    assert.equal(zoneRulesFor('ASIA/TOKYO'), zoneRulesFor('Asia/Tokyo'));
    assert.equal(zoneRulesFor('Asia/Tokyo').name, 'Asia/Tokyo');
    assert.equal(zoneRulesFor('Japan').name, 'Asia/Tokyo');
    assert.equal(
      zoneRulesFor('Etc/GMT+5').offsetAt(Date.parse('2026-07-01T00:00:00Z')),
      -5 * HOUR_MS,
    );
  });
});

void describe('assertTimezone()', () => {
  void it('accepts IANA names and UTC', () => {
    assertTimezone('UTC');
    assertTimezone('Europe/Berlin');
    assertTimezone('Etc/GMT+5');
  });

  for (const name of ['Mars/Olympus', '', '+01:00', '-0500', ' +01:00']) {
    void it(`throws YC_ERR_TIMEZONE_UNKNOWN for '${name}'`, () => {
      assert.throws(
        () => assertTimezone(name),
        (error: unknown) =>
          isYacronError(error, 'YC_ERR_TIMEZONE_UNKNOWN') &&
          error.message === `unknown timezone: ${name}`,
      );
    });
  }
});

void describe('displayTimezoneName() and localTimezone()', () => {
  void it("fixes letter case only and keeps the user's alias", () => {
    assert.equal(displayTimezoneName('utc'), 'UTC');
    assert.equal(displayTimezoneName('europe/berlin'), 'Europe/Berlin');
    assert.equal(displayTimezoneName('US/Eastern'), 'US/Eastern');
  });

  void it('reports a zone that assertTimezone accepts', () => {
    const zone = localTimezone();
    assert.ok(zone.length > 0);
    assertTimezone(zone);
  });
});
