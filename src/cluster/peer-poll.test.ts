// Polling a peer against the reference's recorded /peer responses (well-formed, legacy,
// malformed field by field, ETag/304, node-stats header garbage), replayed through the poll
// cache and the state machine exactly as a live poller would.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clusterGolden } from './golden-fixture.test.js';
import {
  applyPeerFailure,
  applyPeerSuccess,
  newPeerRecord,
  type LocalIdentity,
} from './peer-state.js';
import { summaryToWire } from './summary-wire/index.js';
import { PeerPollCache, UNSOLICITED_304 } from './peer-poll.js';
import type { PeerExchange } from './transport.js';
import type { JobSummariesReport, PeerRecord } from './types.js';
import { sortByCodePoint } from '../common/index.js';

const encoder = new TextEncoder();

function exchange(status: number, headers: Record<string, string>, body: string): PeerExchange {
  const lower: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) lower[name.toLowerCase()] = value;
  return { kind: 'response', status, headers: lower, body: encoder.encode(body) };
}

function summariesJson(report: JobSummariesReport | null): unknown {
  if (report === null) return null;
  return Object.fromEntries([...report.jobs].map(([name, job]) => [name, summaryToWire(job)]));
}

function stored(peer: PeerRecord, cache: PeerPollCache): Record<string, unknown> {
  const sorted = (set: ReadonlySet<string> | null): string[] | null =>
    set === null ? null : sortByCodePoint(set);
  return {
    status: peer.status,
    mismatch_streak: peer.mismatchStreak,
    last_error: peer.lastError,
    node_name: peer.nodeName,
    job_set_id: peer.jobSetId,
    instance_id: peer.instanceId,
    declared_size: peer.declaredSize,
    declared_distribution: peer.declaredDistribution,
    declared_elect_leader: peer.declaredElectLeader,
    reports_members: peer.reportsMembers,
    members:
      peer.members === null ? null : peer.members.map((m) => [m.nodeName, m.instanceId, m.agreed]),
    ran_reboot_jobs: sorted(peer.ranRebootJobs),
    mutual_agreeing: sorted(peer.mutualAgreeing),
    quorate_vouched: sorted(peer.quorateVouched),
    job_summaries: summariesJson(peer.summaries),
    job_summaries_truncated: peer.summaries?.truncated ?? false,
    node_stats: peer.nodeStats,
    cached_etag: cache.etagFor(peer.host) ?? null,
  };
}

/**
 * Our one documented difference in this section: a summary whose last outcome is `unknown` (a
 * crash-reconciled run) is kept; the reference drops it to `last: null` (docs/deviations.md).
 */
function withOurDeviations(
  label: string,
  expect: Record<string, unknown>,
): Record<string, unknown> {
  if (label !== 'job_summaries shapes') return expect;
  const jobs = { ...(expect.job_summaries as Record<string, Record<string, unknown>>) };
  jobs.c = {
    ...jobs.c,
    last: {
      outcome: 'unknown',
      finished_at: '2026-01-01T00:00:00+00:00',
      duration: null,
      exit_code: null,
    },
  };
  return { ...expect, job_summaries: jobs };
}

void test('every recorded /peer response sequence leaves the recorded peer state', () => {
  const cases = clusterGolden().peer_parse;
  assert.ok(cases.length >= 20);
  for (const c of cases) {
    const me: LocalIdentity = {
      nodeName: c.me,
      instanceId: c.my_instance,
      jobSetId: c.my_id,
      driftAfter: 3,
    };
    const cache = new PeerPollCache();
    const peer = newPeerRecord('peer:8443');
    c.responses.forEach((response, index) => {
      assert.equal(
        cache.etagFor(peer.host) ?? null,
        c.if_none_match_sent[index],
        `${c.label}: If-None-Match #${index}`,
      );
      const outcome = cache.interpret(
        peer.host,
        exchange(response.status, response.headers, response.body),
        1000 + index,
      );
      if (outcome.kind === 'success')
        applyPeerSuccess(peer, outcome.observation, me, 1000 + index, outcome.nodeStats);
      else applyPeerFailure(peer, outcome.error, outcome.untrusted);
    });
    assert.deepEqual(stored(peer, cache), withOurDeviations(c.label, c.expect), c.label);
  }
});

const ME: LocalIdentity = {
  nodeName: 'me',
  instanceId: '0'.repeat(32),
  jobSetId: `v1:${'1'.repeat(64)}`,
  driftAfter: 3,
};
const BASE = {
  node_name: 'peer',
  job_set_id: ME.jobSetId,
  scheme_version: 'v1',
  instance_id: 'a'.repeat(32),
};

function pollOnce(body: string, headers: Record<string, string> = {}, status = 200) {
  return new PeerPollCache().interpret('p', exchange(status, headers, body), 0);
}

void test('a well-formed node-stats header is a reading of the known finite numbers only', () => {
  const outcome = pollOnce(JSON.stringify(BASE), {
    'X-Yacron2-Node-Stats': JSON.stringify({
      cpu_percent: 12.5,
      cpu_count: 4,
      mem_percent: true,
      other: 1,
      proc_rss_bytes: 1e9,
    }),
  });
  assert.equal(outcome.kind, 'success');
  assert.deepEqual(outcome.kind === 'success' && outcome.nodeStats, {
    cpu_percent: 12.5,
    cpu_count: 4,
    proc_rss_bytes: 1e9,
  });
  const fractionalCount = pollOnce(JSON.stringify(BASE), {
    'X-Yacron2-Node-Stats': '{"cpu_count": 2.5}',
  });
  assert.equal(fractionalCount.kind === 'success' && fractionalCount.nodeStats, null);
});

void test('strict JSON: NaN, a lone surrogate escape, a BOM, invalid UTF-8 and 1025 levels are invalid', () => {
  const invalid = [
    '{"node_name": NaN}',
    '{"node_name": "\\ud800"}',
    '{"node_name": "\\udc00x"}',
    '\uFEFF{}',
    `${'['.repeat(1025)}${']'.repeat(1025)}`,
  ];
  for (const body of invalid) {
    const outcome = pollOnce(body);
    assert.deepEqual(
      outcome,
      { kind: 'failure', error: 'invalid JSON in /peer response', untrusted: false },
      body.slice(0, 20),
    );
  }
  const badUtf8 = new PeerPollCache().interpret(
    'p',
    { kind: 'response', status: 200, headers: {}, body: new Uint8Array([0x7b, 0xff, 0x7d]) },
    0,
  );
  assert.equal(badUtf8.kind === 'failure' && badUtf8.error, 'invalid JSON in /peer response');
  const deepButLegal = pollOnce(
    JSON.stringify({ ...BASE, extra: JSON.parse(`${'['.repeat(1023)}${']'.repeat(1023)}`) }),
  );
  assert.equal(deepButLegal.kind, 'success', '1024 levels (the object plus 1023 lists) is fine');
  const paired = pollOnce(
    JSON.stringify({ ...BASE, node_name: '\u{1F600}' }).replace('\u{1F600}', '\\ud83d\\ude00'),
  );
  assert.equal(paired.kind === 'success' && paired.observation.nodeName, '\u{1F600}');
});

void test('a body over 256 KiB is oversized; a 3xx body is parsed; HTTP errors fail', () => {
  const big = JSON.stringify({ ...BASE, pad: 'x'.repeat(262_144) });
  assert.equal(
    pollOnce(big).kind === 'failure' && (pollOnce(big) as { error: string }).error,
    'oversized /peer response (> 262144 bytes)',
  );
  assert.equal(
    pollOnce(JSON.stringify(BASE), {}, 302).kind,
    'success',
    'redirects are not followed',
  );
  assert.deepEqual(pollOnce('', {}, 500), { kind: 'failure', error: 'HTTP 500', untrusted: false });
  assert.deepEqual(pollOnce('', {}, 304), {
    kind: 'failure',
    error: UNSOLICITED_304,
    untrusted: false,
  });
});

void test('transport failures: TLS is untrusted, everything else unreachable', () => {
  const cache = new PeerPollCache();
  assert.deepEqual(
    cache.interpret(
      'p',
      { kind: 'failure', reason: 'tls', message: 'certificate signature failure' },
      0,
    ),
    {
      kind: 'failure',
      error: 'certificate signature failure',
      untrusted: true,
    },
  );
  assert.deepEqual(
    cache.interpret('p', { kind: 'failure', reason: 'oversized', message: 'x' }, 0),
    {
      kind: 'failure',
      error: 'oversized /peer response (> 262144 bytes)',
      untrusted: false,
    },
  );
});

void test('wrong field types fail with the field named; list entries that are wrong are dropped', () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ node_name: 5 }, "malformed /peer response: 'node_name' is not a string"],
    [{ scheme_version: ['v1'] }, "malformed /peer response: 'scheme_version' is not a string"],
    [
      { distribution: 'x\ty' },
      "malformed /peer response: 'distribution' is over 256 chars or contains control characters",
    ],
    [{ cluster_size: '3' }, 'malformed /peer response: cluster_size is not a positive integer'],
    [{ cluster_size: 2 ** 60 }, 'malformed /peer response: cluster_size is not a positive integer'],
    [{ elect_leader: 'yes' }, 'malformed /peer response: elect_leader is not a boolean'],
  ];
  for (const [fields, error] of cases) {
    assert.deepEqual(pollOnce(JSON.stringify({ ...BASE, ...fields })), {
      kind: 'failure',
      error,
      untrusted: false,
    });
  }
  const lists = pollOnce(
    JSON.stringify({
      ...BASE,
      members: [
        { node_name: 'a', instance_id: 'i', agreed: true },
        { node_name: 'b', instance_id: null, agreed: true },
        { node_name: 'c', instance_id: 'i', agreed: 'yes' },
        { node_name: 'x'.repeat(257), instance_id: 'i', agreed: true },
        'junk',
      ],
      ran_reboot_jobs: ['ok', 'r'.repeat(129), 7, 'ok'],
      mutual_agreeing: ['a', '', 'b\u200d'],
    }),
  );
  assert.equal(lists.kind, 'success');
  if (lists.kind !== 'success') return;
  assert.deepEqual(lists.observation.members, [{ nodeName: 'a', instanceId: 'i', agreed: true }]);
  assert.deepEqual([...lists.observation.ranRebootJobs], ['ok']);
  assert.deepEqual([...lists.observation.mutualAgreeing], ['a', '']);
});

void test('caps: members and vouched lists stop at 4096, the ran-set at 512 distinct names', () => {
  const names = Array.from({ length: 4100 }, (_, i) => `n${i}`);
  const members = pollOnce(
    JSON.stringify({
      ...BASE,
      members: names.map((n) => ({ node_name: n, instance_id: n, agreed: true })),
    }),
  );
  assert.equal(members.kind === 'success' && members.observation.members.length, 4096);
  const sets = pollOnce(
    JSON.stringify({ ...BASE, quorate_vouched: names, ran_reboot_jobs: ['dup', 'dup', ...names] }),
  );
  assert.equal(sets.kind, 'success');
  if (sets.kind !== 'success') return;
  assert.equal(sets.observation.quorateVouched.size, 4096);
  assert.equal(sets.observation.ranRebootJobs.size, 512);
  assert.ok(sets.observation.ranRebootJobs.has('dup'));
});

void test('an ETag over 128 characters or unprintable is not cached', () => {
  for (const etag of [`"${'e'.repeat(127)}"`, '"a\x01b"']) {
    const cache = new PeerPollCache();
    cache.interpret('p', exchange(200, { ETag: etag }, JSON.stringify(BASE)), 0);
    assert.equal(cache.etagFor('p'), undefined, etag.slice(0, 10));
  }
});
