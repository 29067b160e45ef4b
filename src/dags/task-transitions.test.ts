// The task state machine's edges, one by one: claims (the compare half of the CAS), ends of
// attempts and pokes, lost attempts, and approval decisions.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { RunOutcome } from '../runner/index.js';
import { runOutcome } from '../runner/testing.js';
import { pendingEntry, type TaskEntry } from './run-document.js';
import {
  awaitingEntry,
  claimEntry,
  decidedEntry,
  endedEntry,
  spawnedEntry,
} from './task-transitions.js';
import { makeTask } from './test-dag-fixture.js';

const NOW = 100_000;
const ME = { proc: 'aaaaaaaaaaaa', host: 'h' };
const pending = pendingEntry('t', 1000);

function outcome(kind: RunOutcome['kind'], exitCode = kind === 'succeeded' ? 0 : 1): RunOutcome {
  return runOutcome({
    kind,
    exitCode,
    failReason: kind === 'succeeded' ? null : `failsWhen=nonzeroReturn and retcode=${exitCode}`,
    cancelReason: null,
    pid: 9,
    startedAtMs: NOW,
    finishedAtMs: NOW,
    durationMs: 0,
    stdout: null,
    stderr: null,
    environment: null,
    spawnError: null,
  });
}

void test('a claim takes a pending or due entry once; a second claim of the result is refused', () => {
  const task = makeTask({ id: 't' });
  const claimed = claimEntry(task, pending, ME, NOW);
  assert.ok(claimed !== null);
  assert.deepEqual(
    [claimed.state, claimed.attempt, claimed.proc, claimed.host, claimed.startedAtMs],
    ['running', 1, ME.proc, 'h', 100_000],
  );
  assert.equal(claimEntry(task, claimed, ME, NOW), null);
  const retry: TaskEntry = { ...claimed, state: 'up_for_retry', retryAtMs: 101_000 };
  assert.equal(claimEntry(task, retry, ME, NOW), null, 'not before retryAt');
  const again = claimEntry(task, retry, ME, NOW + 1000);
  assert.equal(again?.attempt, 2);
  assert.equal(again?.retryAtMs, undefined);
  assert.equal(claimEntry(makeTask({ id: 'g', kind: 'approval' }), pending, ME, NOW), null);
  assert.equal(
    claimEntry(task, { ...pending, mapped: true }, ME, NOW),
    null,
    'a placeholder expands',
  );
  assert.equal(spawnedEntry(claimed, 77, NOW).pid, 77);
});

void test('an attempt ends in success, a retry after the delay, or failure once attempts run out', () => {
  const task = makeTask({ id: 't', retries: 1, retryDelayMs: 2000 });
  const first = claimEntry(task, pending, ME, NOW)!;
  const ok = endedEntry(
    task,
    first,
    { kind: 'outcome', outcome: outcome('succeeded'), resources: null },
    NOW,
    0,
  );
  assert.deepEqual(
    [ok.state, ok.exitCode, ok.failReason, ok.finishedAtMs],
    ['success', 0, null, 100_000],
  );
  const retry = endedEntry(
    task,
    first,
    { kind: 'outcome', outcome: outcome('failed', 3), resources: null },
    NOW,
    0,
  );
  assert.deepEqual([retry.state, retry.retryAtMs, retry.exitCode], ['up_for_retry', 102_000, 3]);
  const second = claimEntry(task, retry, ME, NOW + 2000)!;
  const failed = endedEntry(
    task,
    second,
    { kind: 'outcome', outcome: outcome('timed-out', -100), resources: null },
    NOW,
    0,
  );
  assert.equal(failed.state, 'failed');
  const lost = endedEntry(task, second, { kind: 'lost', reason: 'gone' }, NOW, 0);
  assert.deepEqual([lost.state, lost.failReason, lost.exitCode], ['failed', 'gone', null]);
});

void test('a sensor poke: met is success, not met waits for the next poke, a lost poke is re-poked', () => {
  const sensor = makeTask({
    id: 's',
    kind: 'sensor',
    poke: { intervalMs: 10_000, timeoutMs: 60_000, jitterMs: 4000 },
  });
  const poke = claimEntry(sensor, pending, ME, NOW)!;
  assert.deepEqual([poke.pokeCount, poke.firstPokeAtMs, poke.attempt], [1, 100_000, 1]);
  const waiting = endedEntry(
    sensor,
    poke,
    { kind: 'outcome', outcome: outcome('failed'), resources: null },
    NOW,
    0.25,
  );
  assert.deepEqual([waiting.state, waiting.nextPokeAtMs, waiting.pid], ['running', 111_000, null]);
  assert.equal(claimEntry(sensor, waiting, ME, NOW + 10_999), null);
  const second = claimEntry(sensor, waiting, ME, NOW + 11_000)!;
  assert.deepEqual(
    [second.pokeCount, second.firstPokeAtMs, second.attempt, second.nextPokeAtMs],
    [2, 100_000, 1, undefined],
  );
  const repoke = endedEntry(sensor, second, { kind: 'lost', reason: 'gone' }, NOW + 12_000, 0);
  assert.deepEqual([repoke.state, repoke.nextPokeAtMs], ['running', 112_000]);
});

void test('approval: waiting, then approved, rejected (fail or skip); anything else is refused', () => {
  const gate = makeTask({ id: 'g', kind: 'approval' });
  const skipGate = makeTask({ id: 'g', kind: 'approval', onReject: 'skip' });
  const waiting = awaitingEntry(pending, NOW);
  assert.deepEqual([waiting.state, waiting.awaitingApproval], ['running', true]);
  const approved = decidedEntry(gate, waiting, 'approve', 'ann', NOW)!;
  assert.deepEqual(
    [approved.state, approved.approval, approved.awaitingApproval],
    ['success', { decision: 'approved', by: 'ann', atMs: 100_000 }, undefined],
  );
  assert.deepEqual(
    [
      decidedEntry(gate, waiting, 'reject', 'bob', NOW)?.state,
      decidedEntry(gate, waiting, 'reject', 'bob', NOW)?.failReason,
    ],
    ['failed', 'rejected by bob'],
  );
  assert.equal(decidedEntry(skipGate, waiting, 'reject', 'bob', NOW)?.state, 'skipped');
  assert.equal(decidedEntry(gate, approved, 'approve', 'ann', NOW), null);
  assert.equal(decidedEntry(gate, pending, 'approve', 'ann', NOW), null);
  assert.equal(decidedEntry(makeTask({ id: 't' }), waiting, 'approve', 'ann', NOW), null);
  assert.equal(endedEntry(gate, waiting, { kind: 'lost', reason: 'x' }, NOW, 0), waiting);
});
