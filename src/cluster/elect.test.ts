// The election functions against the reference's recorded vectors (names with astral, fullwidth,
// combining and private-use code points), plus the code-point ordering trap spelled out.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  electAvailableJobOwner,
  electAvailableLeader,
  electJobOwner,
  electLeader,
  hrwOwner,
  hrwScore,
  quorumSize,
} from './elect.js';
import { clusterGolden, label } from './golden-fixture.test.js';

const golden = clusterGolden();

void test('quorumSize: every recorded n', () => {
  for (const { n, quorum } of golden.quorum_size) assert.equal(quorumSize(n), quorum, `n=${n}`);
});

void test('electLeader: every recorded case', () => {
  assert.ok(golden.elect_leader.length > 50);
  for (const c of golden.elect_leader) {
    assert.equal(electLeader(c.node, c.live, c.cluster_size, c.candidates), c.leader, label(c));
  }
});

void test('electAvailableLeader: every recorded case', () => {
  for (const c of golden.elect_available_leader) {
    assert.equal(electAvailableLeader(c.node, c.agreeing), c.leader, label(c));
  }
});

void test('hrwScore: every recorded score', () => {
  for (const c of golden.hrw_score) {
    assert.equal(hrwScore(c.job, c.node).toString(16).padStart(16, '0'), c.score_hex, label(c));
  }
});

void test('hrwOwner: every recorded case', () => {
  for (const c of golden.hrw_owner) assert.equal(hrwOwner(c.job, c.members), c.owner, label(c));
});

void test('electJobOwner: every recorded case', () => {
  for (const c of golden.elect_job_owner) {
    assert.equal(
      electJobOwner(c.job, c.node, c.live, c.cluster_size, c.candidates),
      c.owner,
      label(c),
    );
  }
});

void test('electAvailableJobOwner: every recorded case', () => {
  for (const c of golden.elect_available_job_owner) {
    assert.equal(electAvailableJobOwner(c.job, c.node, c.agreeing), c.owner, label(c));
  }
});

void test('electLeader orders by code point: U+FF21 beats U+1F600 (UTF-16 order says otherwise)', () => {
  assert.equal(electLeader('\u{1F600}', ['\uFF21'], 3), '\uFF21');
  assert.equal(electAvailableLeader('\uFF21', ['\u{1F600}']), '\uFF21');
});

void test('electLeader: an empty candidate list is given (this node), null candidates are not', () => {
  assert.equal(electLeader('m', ['a', 'b'], 3, []), 'm');
  assert.equal(electLeader('m', ['a', 'b'], 3, null), 'a');
  assert.equal(electLeader('m', [], 3), null, 'one of three is no quorum');
  assert.equal(electLeader('m', ['a', 'a'], 5), 'a', 'duplicate live entries count');
});

void test('hrwOwner: equal scores go to the code-point-greater name; an empty list has no owner', () => {
  const constant = (): bigint => 7n;
  assert.equal(hrwOwner('job', ['\u{1F600}', '\uFF21', 'a'], constant), '\u{1F600}');
  assert.equal(hrwOwner('job', []), null);
});
