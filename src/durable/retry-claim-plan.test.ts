// The decision table of cross-node retry resume (retry-claim-plan.ts), pure: what the owner's
// claim scan does with a job's newest retries record, what the re-read under the lease confirms,
// and whose record a due retry finds on top. Instants come from a FakeClock.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '../common/index.js';
import { makeJob } from '../config/testing.js';
import type { ResolvedJob } from '../config/index.js';
import { isoAt } from './records.js';
import {
  confirmRetryClaim,
  ladderStillOurs,
  planRetryClaim,
  resumableJob,
  RETRY_CLAIM_GRACE_MS,
  type ClaimableLadder,
} from './retry-claim-plan.js';
import {
  handoffData,
  parseRetry,
  pendingData,
  settledData,
  type RetryRecord,
} from './retry-records.js';

const T0 = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;
const ME = 'node-b';
const OTHER = 'node-a';

const job = (overrides: Parameters<typeof makeJob>[0] = {}): ResolvedJob =>
  makeJob({
    name: 'flaky',
    schedule: '0 * * * *',
    retry: { maximumRetries: 3, initialDelayMs: MINUTE },
    ...overrides,
  });

function record(data: Record<string, unknown>): RetryRecord | undefined {
  return parseRetry(data);
}

void describe('the claim scan plan', () => {
  const clock = new FakeClock(T0);
  const flaky = job();
  const facts = (
    overrides: { nowMs?: number; lastRunFinishedMs?: number | null; j?: ResolvedJob } = {},
  ) => ({
    job: overrides.j ?? flaky,
    host: ME,
    nowMs: overrides.nowMs ?? clock.now(),
    lastRunFinishedMs: overrides.lastRunFinishedMs ?? null,
  });
  const armedAt = T0 - 2 * MINUTE;
  const dueAt = T0 - MINUTE;
  const foreignPending = (notBeforeMs = dueAt, digest = flaky.digest) =>
    record(pendingData({ host: OTHER, attempt: 2, notBeforeMs, jobDigest: digest }, armedAt));
  const handoff = (digest = flaky.digest, attempt = 2) =>
    record(
      handoffData({
        attempt,
        notBeforeMs: T0 - 1000,
        jobDigest: digest,
        fromHost: OTHER,
        atMs: T0 - 1000,
        armedAtMs: armedAt,
      }),
    );

  void it('a handoff is claimed at once, with the ladder as the old owner left it', () => {
    assert.deepEqual(planRetryClaim(handoff(), facts()), {
      kind: 'claim',
      ladder: {
        via: 'handoff',
        attempt: 2,
        notBeforeMs: T0 - 1000,
        jobDigest: flaky.digest,
        fromHost: OTHER,
        armedAtMs: armedAt,
      },
    });
  });

  void it('a foreign pending is left until 30 s past its due time, then claimed', () => {
    assert.deepEqual(planRetryClaim(foreignPending(T0), facts()), {
      kind: 'leave',
      why: 'not-stale',
    });
    const almost = facts({ nowMs: T0 + RETRY_CLAIM_GRACE_MS - 1 });
    assert.deepEqual(planRetryClaim(foreignPending(T0), almost), {
      kind: 'leave',
      why: 'not-stale',
    });
    const stale = planRetryClaim(foreignPending(T0), facts({ nowMs: T0 + RETRY_CLAIM_GRACE_MS }));
    assert.equal(stale.kind, 'claim');
    assert.equal(stale.kind === 'claim' && stale.ladder.via, 'stale-pending');
    assert.equal(stale.kind === 'claim' && stale.ladder.fromHost, OTHER);
    assert.equal(stale.kind === 'claim' && stale.ladder.armedAtMs, armedAt);
  });

  void it("nothing to claim: no record, a settled one, this host's own pending, an invalid one, an unknown kind", () => {
    assert.deepEqual(planRetryClaim(undefined, facts()), { kind: 'leave', why: 'not-pending' });
    const settled = record(settledData(OTHER, 'launched', 2, T0));
    assert.deepEqual(planRetryClaim(settled, facts()), { kind: 'leave', why: 'not-pending' });
    const own = record(
      pendingData(
        { host: ME, attempt: 1, notBeforeMs: T0 - 5 * MINUTE, jobDigest: flaky.digest },
        armedAt,
      ),
    );
    assert.deepEqual(planRetryClaim(own, facts()), { kind: 'leave', why: 'own' });
    const invalid = record({ kind: 'pending', host: OTHER, attempt: 'two', notBefore: isoAt(T0) });
    assert.equal(invalid?.kind, 'pending-invalid');
    assert.deepEqual(planRetryClaim(invalid, facts()), { kind: 'leave', why: 'not-pending' });
    // A newer build's kind (mixed fleets) is not pending: parseRetry does not know it.
    const future = record({ kind: 'relay', host: OTHER, attempt: 2, notBefore: isoAt(T0) });
    assert.equal(future, undefined);
    assert.deepEqual(planRetryClaim(future, facts()), { kind: 'leave', why: 'not-pending' });
  });

  void it('a ladder that may not resume here is settled with the reason the boot re-arm would give', () => {
    const settleReason = (plan: ReturnType<typeof planRetryClaim>) =>
      plan.kind === 'settle' ? plan.reason : plan.kind;
    assert.equal(settleReason(planRetryClaim(handoff('0'.repeat(64)), facts())), 'config-changed');
    assert.equal(
      settleReason(planRetryClaim(handoff(), facts({ j: job({ enabled: false }) }))),
      'disabled',
    );
    assert.equal(settleReason(planRetryClaim(handoff(flaky.digest, 4), facts())), 'exhausted');
    assert.equal(
      settleReason(planRetryClaim(handoff(), facts({ lastRunFinishedMs: armedAt + 1 }))),
      'superseded-by-run',
      'a run this node knows finished after the ladder was armed',
    );
    assert.equal(
      settleReason(planRetryClaim(handoff(), facts({ lastRunFinishedMs: armedAt - 1 }))),
      'claim',
    );
    const deadline = job({ startingDeadlineMs: 10 * MINUTE });
    const late = facts({ j: deadline, nowMs: dueAt + 10 * MINUTE + 1 });
    assert.equal(
      settleReason(planRetryClaim(foreignPending(dueAt, deadline.digest), late)),
      'deadline-passed',
    );
    const inTime = facts({ j: deadline, nowMs: dueAt + 10 * MINUTE });
    assert.equal(
      settleReason(planRetryClaim(foreignPending(dueAt, deadline.digest), inTime)),
      'claim',
    );
  });

  void it('resume applies to Leader and PreferLeader ladders only, never to an @reboot one', () => {
    assert.equal(resumableJob(job()), true);
    assert.equal(resumableJob(job({ clusterPolicy: 'PreferLeader' })), true);
    assert.equal(resumableJob(job({ clusterPolicy: 'EveryNode' })), false);
    assert.equal(resumableJob(job({ schedule: '@reboot' })), false);
  });
});

void describe('the claim confirmed under the lease', () => {
  const ladder: ClaimableLadder = {
    via: 'handoff',
    attempt: 1,
    notBeforeMs: T0,
    jobDigest: 'd',
    fromHost: OTHER,
    armedAtMs: T0 - MINUTE,
  };

  void it('the re-read must find the same newest record', () => {
    const changed = { plannedId: 'r1', ladder, ledgerFinishedMs: null };
    assert.deepEqual(confirmRetryClaim({ ...changed, rereadId: 'r2' }), { kind: 'changed' });
    assert.deepEqual(confirmRetryClaim({ ...changed, rereadId: undefined }), { kind: 'changed' });
    assert.deepEqual(confirmRetryClaim({ ...changed, rereadId: 'r1' }), { kind: 'proceed' });
  });

  void it('a durable run newer than the arming supersedes the ladder; an older one does not', () => {
    const base = { plannedId: 'r1', rereadId: 'r1', ladder };
    assert.deepEqual(confirmRetryClaim({ ...base, ledgerFinishedMs: T0 - MINUTE + 1 }), {
      kind: 'superseded-by-run',
    });
    assert.deepEqual(confirmRetryClaim({ ...base, ledgerFinishedMs: T0 - MINUTE }), {
      kind: 'proceed',
    });
    assert.deepEqual(
      confirmRetryClaim({ ...base, ladder: { ...ladder, armedAtMs: null }, ledgerFinishedMs: T0 }),
      { kind: 'proceed' },
      'an unknown arming instant cannot be judged superseded',
    );
  });
});

void describe('the consume-time re-check', () => {
  void it("the newest record is ours while it is this host's pending or settle, or there is none", () => {
    assert.equal(ladderStillOurs(undefined, ME), true);
    assert.equal(
      ladderStillOurs(
        pendingData({ host: ME, attempt: 1, notBeforeMs: T0, jobDigest: 'd' }, T0),
        ME,
      ),
      true,
    );
    assert.equal(ladderStillOurs(settledData(ME, 'succeeded', 1, T0), ME), true);
    assert.equal(ladderStillOurs({ kind: 'pending', host: ME, attempt: 0 }, ME), true);
  });

  void it("a claimer's pending, its launched settle, a handoff or an unknown kind aborts", () => {
    const claimed = pendingData(
      { host: OTHER, attempt: 1, notBeforeMs: T0, jobDigest: 'd', claimedFrom: ME },
      T0,
    );
    assert.equal(ladderStillOurs(claimed, ME), false);
    assert.equal(ladderStillOurs(settledData(OTHER, 'launched', 1, T0), ME), false);
    const handoff = handoffData({
      attempt: 1,
      notBeforeMs: T0,
      jobDigest: 'd',
      fromHost: ME,
      atMs: T0,
      armedAtMs: T0,
    });
    assert.equal(ladderStillOurs(handoff, ME), false, 'even our own handoff: it was given away');
    assert.equal(ladderStillOurs({ kind: 'relay', host: OTHER }, ME), false);
    assert.equal(ladderStillOurs({ kind: 'relay', host: ME }, ME), true);
  });
});
