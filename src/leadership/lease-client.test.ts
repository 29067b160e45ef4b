// The lease stores' shared formats: the stored @reboot ran-set (compact, sorted by code point,
// ASCII-escaped as Python's json.dumps writes it; anything decodes, junk to no set), Kubernetes
// MicroTime (written with 6 digits and Z; read leniently) and the holder display name.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  decodeRanSet,
  displayHolder,
  encodeRanSet,
  formatMicroTime,
  parseMicroTime,
} from './lease-client.js';

void test('the ran-set value: compact JSON, names de-duplicated and sorted by code point, ASCII-escaped', () => {
  assert.equal(
    encodeRanSet('v1:abc', ['zeta', 'alpha', '\u{1F600}', '\uFF21', 'alpha', 'é']),
    '{"jobSetId":"v1:abc","jobs":["alpha","zeta","\\u00e9","\\uff21","\\ud83d\\ude00"]}',
  );
  assert.equal(encodeRanSet('v1:x', []), '{"jobSetId":"v1:x","jobs":[]}');
  const decoded = decodeRanSet('{"jobSetId":"v1:abc","jobs":["a","\\u00e9",3,null]}');
  assert.equal(decoded.jobSetId, 'v1:abc');
  assert.deepEqual([...decoded.jobs], ['a', 'é']);
});

void test('a ran-set value that is junk decodes to no set', () => {
  for (const junk of [undefined, null, '', 'not json', '[1,2]', '"text"', '{"jobs":"a"}', '{}']) {
    const decoded = decodeRanSet(junk);
    assert.equal(decoded.jobs.size, 0, String(junk));
  }
  assert.equal(decodeRanSet('{"jobSetId":7,"jobs":["a"]}').jobSetId, null);
});

void test('MicroTime: written with microseconds and Z, read leniently (fraction, offset, naive = UTC)', () => {
  const ms = Date.UTC(2026, 4, 1, 12, 0, 0, 250);
  assert.equal(formatMicroTime(ms), '2026-05-01T12:00:00.250000Z');
  assert.equal(formatMicroTime(ms + 0.0015), '2026-05-01T12:00:00.250002Z');
  assert.equal(parseMicroTime('2026-05-01T12:00:00.250000Z'), ms);
  assert.equal(parseMicroTime('2026-05-01T12:00:00.25Z'), ms);
  assert.equal(parseMicroTime('2026-05-01T14:00:00.25+02:00'), ms);
  assert.equal(parseMicroTime('2026-05-01T14:00:00.25+0200'), ms);
  assert.equal(parseMicroTime('2026-05-01T12:00:00.25'), ms, 'naive is UTC');
  assert.equal(parseMicroTime('2026-05-01T12:00:00Z'), ms - 250);
  for (const junk of ['', 'yesterday', '2026-13-45T99:00:00Z', 42, null]) {
    assert.equal(parseMicroTime(junk), null, String(junk));
  }
});

void test('the holder display name strips the per-process token after the last #', () => {
  assert.equal(displayHolder('pod-a#0123456789ab'), 'pod-a');
  assert.equal(displayHolder('we#ird#0123456789ab'), 'we#ird');
  assert.equal(displayHolder('plain'), 'plain');
  assert.equal(displayHolder(''), null);
  assert.equal(displayHolder(null), null);
});
