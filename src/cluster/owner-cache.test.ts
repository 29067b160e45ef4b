// Cached rendezvous owners answer exactly what the uncached election would, for the candidate
// list they are asked about.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hrwOwner, hrwScore } from './elect.js';
import { RendezvousOwners, ScoreCache } from './owner-cache.js';

void test('cached owners equal hrwOwner, and follow a changed candidate list', () => {
  const owners = new RendezvousOwners(new ScoreCache());
  const first = ['b', 'c', 'd'];
  const second = ['b', 'c'];
  for (let index = 0; index < 300; index++) {
    const job = `job-${index}`;
    assert.equal(owners.owner(job, 'a', first, 'first'), hrwOwner(job, ['a', ...first]));
  }
  for (let index = 0; index < 300; index++) {
    const job = `job-${index}`;
    assert.equal(owners.owner(job, 'a', second, 'second'), hrwOwner(job, ['a', ...second]), job);
  }
});

void test('cached scores equal hrwScore, also after the cache starts over', () => {
  const scores = new ScoreCache();
  for (let index = 0; index < 70_000; index++) {
    const job = `j${index % 10_007}`;
    const node = `n${index % 7}`;
    if (index % 997 === 0) assert.equal(scores.score(job, node), hrwScore(job, node));
    else scores.score(job, node);
  }
  assert.equal(scores.score('j1', 'n1'), hrwScore('j1', 'n1'));
});
