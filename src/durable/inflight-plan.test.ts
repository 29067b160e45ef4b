// The in-flight planner (inflight-plan.ts): which runs of other processes of this host are open
// in a stream read whole, which of them the ledger accounts for, and which runs of any other
// process missed-run catch-up counts as started.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatIsoUtc } from '../common/index.js';
import type { JsonObject } from '../state/index.js';
import {
  accountedStarts,
  newestUnaccountedStart,
  openRunsElsewhere,
  openRunsOfOtherProcesses,
  unaccountedOpens,
} from './inflight-plan.js';
import { reconciledRowOf } from './ledger-rows.js';

const T0 = Date.UTC(2026, 0, 1);
const HOST = 'host-a';

const open = (proc: string, startMs: number, extra: JsonObject = {}): JsonObject => ({
  kind: 'open',
  host: HOST,
  proc,
  pid: 100 + (startMs - T0) / 1000,
  startedAt: formatIsoUtc(startMs),
  jobDigest: 'd',
  ...extra,
});
const closed = (proc: string, reason: string, extra: JsonObject = {}): JsonObject => ({
  kind: 'closed',
  host: HOST,
  proc,
  reason,
  at: formatIsoUtc(T0),
  ...extra,
});
/** Records as the store lists them: newest first. */
const listed = (oldestFirst: readonly JsonObject[]): { data: JsonObject }[] =>
  [...oldestFirst].reverse().map((data) => ({ data }));
const starts = (opens: readonly { startedAtMs: number }[]): number[] =>
  opens.map((each) => each.startedAtMs);

void test("a process's finished close settles its earlier opens only; later ones stay open", () => {
  const records = listed([
    open('p1', T0),
    open('p1', T0 + 1000),
    closed('p1', 'finished'),
    open('p1', T0 + 5000),
    open('p2', T0 + 6000),
    open('p1', T0 + 7000),
  ]);
  assert.deepEqual(starts(openRunsOfOtherProcesses(records, HOST, 'me')), [
    T0 + 5000,
    T0 + 6000,
    T0 + 7000,
  ]);
});

void test('own records, other hosts and unreadable records are not open runs of another process', () => {
  const records = listed([
    open('me', T0),
    open('p1', T0 + 1000, { host: 'host-b' }),
    open('p2', T0 + 2000, { startedAt: 'yesterday' }),
    { kind: 'open', host: HOST, startedAt: formatIsoUtc(T0) },
  ]);
  assert.deepEqual(openRunsOfOtherProcesses(records, HOST, 'me'), []);
});

void test('a reconciled close names its writer, not the run: it settles nothing', () => {
  const records = listed([
    open('p1', T0),
    closed('p2', 'reconciled-crash'),
    closed('p1', 'reconciled-takeover'),
  ]);
  assert.deepEqual(starts(openRunsOfOtherProcesses(records, HOST, 'me')), [T0]);
});

void test('the same open record twice (one run) counts once', () => {
  const records = listed([open('p1', T0), open('p1', T0)]);
  assert.equal(openRunsOfOtherProcesses(records, HOST, 'me').length, 1);
});

void test("the ledger accounts for a finished run's start and a reconciled row's named start", () => {
  const finished = {
    outcome: 'success',
    exit_code: 0,
    started_at: formatIsoUtc(T0),
    finished_at: formatIsoUtc(T0 + 3000),
    duration: 3.0,
    fail_reason: null,
    resources: null,
  };
  const accounted = accountedStarts([
    finished,
    reconciledRowOf('skip', T0 + 1000, HOST),
    reconciledRowOf('run-all', T0 + 2000, HOST),
    { outcome: 'success', started_at: null }, // no instant at all: not a row
  ]);
  assert.deepEqual(
    [...accounted].sort((a, b) => a - b),
    [T0, T0 + 1000, T0 + 2000],
  );
  const opens = openRunsOfOtherProcesses(
    listed([0, 1000, 2000, 4000].map((offset) => open('p1', T0 + offset))),
    HOST,
    'me',
  );
  assert.deepEqual(starts(unaccountedOpens(opens, accounted)), [T0 + 4000]);
});

void test('a run recorded before its spawn (pid null, then its pid) is one open run with its pid', () => {
  const records = listed([open('p1', T0, { pid: null }), open('p1', T0)]);
  const opens = openRunsOfOtherProcesses(records, HOST, 'me');
  assert.deepEqual(
    opens.map((each) => [each.startedAtMs, each.pid]),
    [[T0, 100]],
  );
  // Only the pid-null record landed (the node stopped right after the spawn): pid null, which the
  // reconciliation treats as a process that is gone.
  const alone = openRunsOfOtherProcesses(listed([open('p1', T0, { pid: null })]), HOST, 'me');
  assert.deepEqual(
    alone.map((each) => each.pid),
    [null],
  );
});

void test('open runs elsewhere: every other process on any host, never this process', () => {
  const records = listed([
    open('me', T0),
    open('p1', T0 + 1000, { host: 'host-b' }),
    open('me', T0 + 2000, { host: 'host-b' }), // another host's process with the same token
    open('p2', T0 + 3000),
    open('p3', T0 + 4000, { host: 'host-c' }),
    closed('p3', 'finished', { host: 'host-c' }),
    closed('p1', 'finished'), // host-a's p1 settles nothing of host-b's p1
  ]);
  const opens = openRunsElsewhere(records, { host: HOST, proc: 'me' });
  assert.deepEqual(
    opens.map((each) => [each.host, each.proc, each.startedAtMs]),
    [
      ['host-b', 'p1', T0 + 1000],
      ['host-b', 'me', T0 + 2000],
      [HOST, 'p2', T0 + 3000],
    ],
  );
});

void test('the newest unaccounted start by the cut-off: accounted runs and later starts are left out', () => {
  const opens = openRunsElsewhere(
    listed([0, 1000, 2000, 9000].map((offset) => open('p1', T0 + offset, { host: 'host-b' }))),
    { host: HOST, proc: 'me' },
  );
  // T0 + 2 s has a row (finished, or reconciled under run-once / run-all: owed to catch-up).
  assert.equal(newestUnaccountedStart(opens, new Set([T0 + 2000]), T0 + 5000), T0 + 1000);
  assert.equal(newestUnaccountedStart(opens, new Set(), T0 + 5000), T0 + 2000);
  assert.equal(newestUnaccountedStart(opens, new Set(), T0 + 9000), T0 + 9000, 'inclusive');
  assert.equal(newestUnaccountedStart(opens, new Set(), T0 - 1), null);
  assert.equal(newestUnaccountedStart([], new Set(), T0 + 5000), null);
});
