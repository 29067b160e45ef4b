// The contract every LeaseClient keeps (memory, etcd, Kubernetes, filesystem), run against real
// stores by each backend's tests: one winner, a follower that names it, renewal, a fence deadline
// in the future and no later than the freshness deadline, the ran-set persisted for every node
// under its job-set id only, and a release that frees the lease for the next round.
import assert from 'node:assert/strict';
import type { Clock } from '../common/index.js';
import type { LeaseClient, RanSetMarks, RoundOutcome } from './lease-client.js';

export interface ContractSubject {
  readonly clock: Clock;
  /** A started client on the shared store, writing `identity`. */
  make(identity: string): Promise<LeaseClient>;
}

const marks = (jobSetId: string, ...jobs: string[]): RanSetMarks => ({
  jobSetId,
  jobs: new Set(jobs),
});

function round(client: LeaseClient, m: RanSetMarks): Promise<RoundOutcome> {
  return client.round(m, new AbortController().signal);
}

export async function checkLeaseClientContract(subject: ContractSubject): Promise<void> {
  const { clock } = subject;
  const a = await subject.make('node-a');
  const b = await subject.make('node-b');
  try {
    const first = await round(a, marks('v1:x'));
    assert.equal(first.kind, 'leader', 'the first claimant wins');
    assert.equal(first.holder, 'node-a');
    const now = clock.monotonic();
    assert.ok(first.fenceUntilMs > now, 'the fence deadline is ahead');
    assert.ok(first.fenceUntilMs < first.freshUntilMs, 'the fence is shorter than freshness');

    const second = await round(b, marks('v1:x'));
    assert.equal(second.kind, 'follower', 'one holder at a time');
    assert.equal(second.holder, 'node-a', 'the follower names the holder');
    assert.ok(second.freshUntilMs > clock.monotonic());
    assert.equal(second.leaseLost, false);

    const renewed = await round(a, marks('v1:x', 'boot'));
    assert.equal(renewed.kind, 'leader', 'the holder renews');
    assert.ok(renewed.ranSet?.jobs.has('boot'), 'the holder persisted its mark');

    const reader = await subject.make('node-c');
    try {
      const read = await round(reader, marks('v1:x'));
      assert.equal(read.kind, 'follower');
      assert.equal(read.ranSet?.jobSetId, 'v1:x');
      assert.deepEqual([...(read.ranSet?.jobs ?? [])], ['boot'], 'every node reads the mark back');
    } finally {
      await reader.close();
    }

    await a.release(new AbortController().signal);
    const takeover = await round(b, marks('v1:x'));
    assert.equal(takeover.kind, 'leader', 'a released lease is free at the next round');
    assert.equal(takeover.holder, 'node-b');
    await b.release(new AbortController().signal);
  } finally {
    await a.close();
    await b.close();
  }
}
