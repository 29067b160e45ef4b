// The pass inside the run document's lock: a lost attempt is settled only if it is still the
// attempt the advancer judged; settles cascade to the roll-up in one pass; nothing is claimed
// while the daemon stops.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { applyPass, LOST_REASON, type PassInput } from './run-pass.js';
import { makeDag, makeRun } from './test-dag-fixture.js';

const NOW = 1_000_000;
const dag = makeDag('d', [
  { id: 'a' },
  { id: 'b', dependsOn: ['a'] },
  { id: 'c', dependsOn: ['b'] },
]);
const input = (extra: Partial<PassInput> = {}): PassInput => ({
  dag,
  nowMs: NOW,
  claimer: { proc: 'me0000000000', host: 'h' },
  lost: [],
  expansions: new Map(),
  random: () => 0,
  launching: true,
  ...extra,
});

void test('a lost attempt fails its task and the failure cascades to the run in one pass', () => {
  const doc = makeRun(dag, { a: { state: 'running', proc: 'old000000000', attempt: 1 } });
  const pass = applyPass(
    doc,
    input({ lost: [{ taskKey: 'a', proc: 'old000000000', attempt: 1 }] }),
  );
  assert.ok(pass.doc !== null);
  assert.equal(pass.doc.tasks['a']?.failReason, LOST_REASON);
  assert.deepEqual(
    Object.values(pass.doc.tasks).map((entry) => entry.state),
    ['failed', 'upstream_failed', 'upstream_failed'],
  );
  assert.equal(pass.doc.state, 'failed');
  assert.deepEqual(pass.claimed, []);
});

void test('a lost verdict about another attempt (or another owner) changes nothing', () => {
  const doc = makeRun(dag, { a: { state: 'running', proc: 'new000000000', attempt: 2 } });
  for (const lost of [
    { taskKey: 'a', proc: 'old000000000', attempt: 2 },
    { taskKey: 'a', proc: 'new000000000', attempt: 1 },
    { taskKey: 'zz', proc: null, attempt: 0 },
  ]) {
    assert.equal(applyPass(doc, input({ lost: [lost] })).doc, null);
  }
  assert.equal(applyPass(undefined, input()).doc, null);
});

void test('claims happen only while launching', () => {
  const doc = makeRun(dag);
  assert.deepEqual(
    applyPass(doc, input()).claimed.map((claim) => claim.taskKey),
    ['a'],
  );
  const stopping = applyPass(doc, input({ launching: false }));
  assert.deepEqual([stopping.doc, stopping.claimed], [null, []]);
});
