// What a node serves: the ETag that ignores a countdown, 304/HEAD/node-stats on the handler, and
// the job summaries it advertises (sorted by code point, capped, truncation flagged).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../common/index.js';
import { AdvertisedNamesMemo, buildSummariesWire, jobSummaries } from './job-summaries.js';
import { peerPayloadEtag, roundHalfEven } from './payload-build.js';
import { createPeerHandler } from './peer-handler.js';
import type { PeerPayload } from './peer-payload.js';
import type { JobSummary } from './types.js';

const job = (scheduledInSeconds: number | null, running = false): JobSummary => ({
  running,
  enabled: true,
  scheduledInSeconds,
  last: null,
});

function payloadWith(scheduledIn: number, extra: Partial<PeerPayload> = {}): PeerPayload {
  return {
    node_name: 'a',
    job_set_id: 'v1:x',
    scheme_version: null,
    instance_id: null,
    cluster_size: null,
    distribution: null,
    elect_leader: null,
    members: null,
    ran_reboot_jobs: [],
    mutual_agreeing: [],
    quorate_vouched: [],
    job_summaries: buildSummariesWire(new Map([['backup', job(scheduledIn)]])).jobSummaries,
    job_summaries_truncated: false,
    ...extra,
  };
}

void test('the ETag ignores a countdown (scheduled_in anchored to the absolute second) and sees every real change', () => {
  const at = Date.UTC(2026, 0, 1, 12, 0, 0);
  const tag = peerPayloadEtag(payloadWith(30), at);
  assert.match(tag, /^"[0-9a-f]{64}"$/);
  assert.equal(
    peerPayloadEtag(payloadWith(20), at + 10_000),
    tag,
    'ten seconds later, ten seconds closer',
  );
  assert.notEqual(peerPayloadEtag(payloadWith(30), at + 10_000), tag, 'the next fire moved');
  assert.notEqual(peerPayloadEtag(payloadWith(30, { node_name: 'b' }), at), tag);
  const { node_name: nodeName, ...rest } = payloadWith(30);
  assert.equal(
    peerPayloadEtag({ ...rest, node_name: nodeName }, at),
    tag,
    'key order does not matter',
  );
});

void test('roundHalfEven is Python round(): halves go to the even neighbour', () => {
  assert.deepEqual(
    [0.5, 1.5, 2.5, 2.4, 2.6, -0.5, -1.5].map(roundHalfEven),
    [0, 2, 2, 2, 3, 0, -2],
  );
});

void test('the handler: 304 for a matching If-None-Match, HEAD without a body, the node-stats header on both', () => {
  let stats: Record<string, number> | null = { cpu_percent: 1.5, cpu_count: 4 };
  const handler = createPeerHandler({
    clock: new FakeClock(),
    payload: () => payloadWith(30),
    nodeStats: () => stats,
    receiveRebootRan: () => undefined,
  });
  const first = handler({ method: 'GET', path: '/peer', headers: {}, body: new Uint8Array(0) });
  assert.equal(first.status, 200);
  assert.equal(first.headers['Content-Type'], 'application/json; charset=utf-8');
  assert.equal(first.headers['X-Yacron2-Node-Stats'], '{"cpu_percent":1.5,"cpu_count":4}');
  const etag = first.headers.ETag ?? '';
  const again = handler({
    method: 'GET',
    path: '/peer',
    headers: { 'if-none-match': etag },
    body: new Uint8Array(0),
  });
  assert.deepEqual([again.status, again.body.byteLength, again.headers.ETag], [304, 0, etag]);
  assert.equal(again.headers['X-Yacron2-Node-Stats'], '{"cpu_percent":1.5,"cpu_count":4}');
  const head = handler({ method: 'HEAD', path: '/peer', headers: {}, body: new Uint8Array(0) });
  assert.deepEqual([head.status, head.body.byteLength], [200, 0]);
  stats = null;
  assert.equal(
    handler({ method: 'GET', path: '/peer', headers: {}, body: new Uint8Array(0) }).headers[
      'X-Yacron2-Node-Stats'
    ],
    undefined,
  );
});

void test('summaries advertised: sorted by code point, names over 128 left out, 512 kept, truncation flagged', () => {
  const jobs = new Map<string, JobSummary>([
    ['\u{1F600}', job(1)],
    ['\uFF21', job(2)],
    ['b', job(null, true)],
  ]);
  const wire = buildSummariesWire(jobs);
  assert.deepEqual(Object.keys(wire.jobSummaries), ['b', '\uFF21', '\u{1F600}']);
  assert.equal(wire.truncated, false);
  assert.deepEqual(wire.jobSummaries.b, {
    running: true,
    enabled: true,
    scheduled_in: null,
    last: null,
  });
  const long = buildSummariesWire(
    new Map([
      ['x'.repeat(129), job(1)],
      ['ok', job(1)],
    ]),
  );
  assert.deepEqual([Object.keys(long.jobSummaries), long.truncated], [['ok'], true]);
  const many = new Map(
    Array.from({ length: 600 }, (_, index) => [
      `job-${String(index).padStart(3, '0')}`,
      job(index),
    ]),
  );
  const capped = buildSummariesWire(many);
  assert.equal(Object.keys(capped.jobSummaries).length, 512);
  assert.equal(capped.truncated, true);
  assert.ok('job-511' in capped.jobSummaries && !('job-512' in capped.jobSummaries));
});

void test('the scheduler is asked only about the advertised names; the sorted list is kept until the job list changes', () => {
  const names = Array.from(
    { length: 700 },
    (_, index) => `job-${String(699 - index).padStart(3, '0')}`,
  );
  const jobsOf = (list: readonly string[]) => list.map((name) => ({ name }));
  const configured = jobsOf(names);
  const asked: string[] = [];
  const at = Date.UTC(2026, 0, 1);
  const view = {
    getJobConfig: (name: string) => (name === 'job-001' ? undefined : ({} as never)),
    getJobState: (name: string) => {
      asked.push(name);
      return {
        job: { enabled: true, schedule: { kind: 'cron' } },
        runningInstances: name === 'job-000' ? 1 : 0,
        nextFireAtMs: at + 30_000,
        recentRuns: [],
      } as never;
    },
  };
  const memo = new AdvertisedNamesMemo();
  const advertised = memo.of(configured);
  assert.equal(memo.of(configured), advertised, 'the same list: the same answer, not sorted again');
  assert.deepEqual(
    [advertised.names.length, advertised.names[0], advertised.truncated],
    [512, 'job-000', true],
  );
  const summaries = jobSummaries(view, advertised, at);
  assert.equal(asked.length, 511, 'the 188 names past the cap are never looked up, nor job-001');
  assert.equal(summaries.jobs.has('job-001'), false, 'not (yet) in the scheduler: left out');
  assert.deepEqual(summaries.jobs.get('job-000'), {
    running: true,
    enabled: true,
    scheduledInSeconds: null,
    last: null,
  });
  assert.equal(summaries.jobs.get('job-002')?.scheduledInSeconds, 30);
  assert.equal(summaries.truncated, true);
  const reloaded = memo.of(jobsOf(['b', 'a']));
  assert.deepEqual([reloaded.names, reloaded.truncated], [['a', 'b'], false]);
});

void test("the ETag is the reference's: sha256 of json.dumps(sort_keys, compact, ensure_ascii) (a value computed with Python)", () => {
  const payload: PeerPayload = {
    node_name: 'n\u00e9-\u{1F600}',
    job_set_id: `v1:${'1'.repeat(64)}`,
    scheme_version: 'v1',
    instance_id: 'a'.repeat(32),
    cluster_size: 3,
    distribution: 'spread',
    elect_leader: true,
    members: [
      { node_name: 'n\u00e9-\u{1F600}', instance_id: 'a'.repeat(32), agreed: true },
      { node_name: 'b', instance_id: null, agreed: false },
    ],
    ran_reboot_jobs: ['boot'],
    mutual_agreeing: ['b'],
    quorate_vouched: [],
    job_summaries: buildSummariesWire(
      new Map<string, JobSummary>([
        [
          'backup',
          {
            running: false,
            enabled: true,
            scheduledInSeconds: 12.5,
            last: {
              outcome: 'success',
              finishedAt: '2026-01-01T00:00:00+00:00',
              durationSeconds: 1.25,
              exitCode: 0,
            },
          },
        ],
        ['z', { running: true, enabled: false, scheduledInSeconds: null, last: null }],
      ]),
    ).jobSummaries,
    job_summaries_truncated: false,
  };
  assert.equal(
    peerPayloadEtag(payload, Date.UTC(2026, 0, 1)),
    '"f4bd41f42d8e8f876a4e60692efff79dc00307a35df876249e18a1eb569bf802"',
  );
});
