// The memoised /peer ETag against the pure one: over a seeded sequence of payloads that change
// one thing at a time (a countdown, a run starting or ending, a job added or removed, the
// membership), both give the same tag at every step, and a change the tag must see changes it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seededRandom } from '../common/index.js';
import { peerPayloadEtag } from './payload-build.js';
import { PeerEtagMemo } from './peer-etag.js';
import type { JobSummariesWire, JobSummaryWire, PeerPayload } from './peer-payload.js';

const NAMES = ['backup', 'b\u00e9ta', '__proto__', 'z\u{1f600}', '\ue000x', 'a"b\\c', 'j1', 'j2'];

function payload(summaries: JobSummariesWire | null, agreed = true): PeerPayload {
  return {
    node_name: 'a',
    job_set_id: 'v1:x',
    scheme_version: 'v1',
    instance_id: 'i-a',
    cluster_size: 2,
    distribution: 'single-leader',
    elect_leader: true,
    members: [
      { node_name: 'a', instance_id: 'i-a', agreed: true },
      { node_name: 'b', instance_id: 'i-b', agreed },
    ],
    ran_reboot_jobs: [],
    mutual_agreeing: ['a', 'b'],
    quorate_vouched: ['a'],
    job_summaries: summaries,
    job_summaries_truncated: false,
  };
}

function wire(entries: Map<string, JobSummaryWire>): JobSummariesWire {
  return Object.fromEntries(entries);
}

void test('the memoised tag is the pure tag at every step of a seeded sequence of changes', () => {
  const random = seededRandom(32);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  const memo = new PeerEtagMemo();
  let nowMs = Date.UTC(2026, 11, 7, 12, 0, 0);
  const next = new Map<string, number>(NAMES.map((name, i) => [name, nowMs + (i + 1) * 1000]));
  const entries = new Map<string, JobSummaryWire>();
  const summaryOf = (name: string, running: boolean, last: JobSummaryWire['last']) => ({
    running,
    enabled: true,
    scheduled_in: running ? null : (next.get(name)! - nowMs) / 1000,
    last,
  });
  for (const name of NAMES.slice(0, 6)) entries.set(name, summaryOf(name, false, null));
  const seen = new Set<string>();
  let agreed = true;
  for (let step = 0; step < 400; step++) {
    const name = pick(NAMES);
    const current = entries.get(name);
    switch (pick(['tick', 'start', 'finish', 'toggle', 'add-remove', 'members', 'none'])) {
      case 'tick':
        nowMs += pick([1, 250, 999, 1000, 3000]);
        break;
      case 'start':
        if (current !== undefined)
          entries.set(name, { ...current, running: true, scheduled_in: null });
        break;
      case 'finish':
        if (current !== undefined) {
          next.set(name, next.get(name)! + pick([1000, 60_000]));
          const outcome = pick(['success', 'failure'] as const);
          entries.set(
            name,
            summaryOf(name, false, {
              outcome,
              finished_at: new Date(nowMs).toISOString(),
              duration: pick([0, 0.5, 12, null]),
              exit_code: outcome === 'success' ? 0 : pick([1, null]),
            }),
          );
        }
        break;
      case 'toggle':
        if (current !== undefined) entries.set(name, { ...current, enabled: !current.enabled });
        break;
      case 'add-remove':
        if (current === undefined) entries.set(name, summaryOf(name, false, null));
        else entries.delete(name);
        break;
      case 'members':
        agreed = !agreed;
        break;
    }
    // Countdowns are relative to the instant the body is built, as the node builds them.
    for (const [key, value] of entries) {
      if (value.scheduled_in !== null) {
        entries.set(key, { ...value, scheduled_in: (next.get(key)! - nowMs) / 1000 });
      }
    }
    const body = payload(step % 50 === 49 ? null : wire(entries), agreed);
    const tag = memo.etag(body, nowMs);
    assert.equal(tag, peerPayloadEtag(body, nowMs), `step ${step}`);
    seen.add(tag);
  }
  assert.ok(seen.size > 100, `the sequence changed the tag ${seen.size} times`);
});

void test('the memo sees a change in every hashed field of a summary', () => {
  const at = Date.UTC(2026, 0, 1);
  const base: JobSummaryWire = {
    running: false,
    enabled: true,
    scheduled_in: 30,
    last: { outcome: 'success', finished_at: '2026-01-01T00:00:00Z', duration: 1, exit_code: 0 },
  };
  const variants: JobSummaryWire[] = [
    { ...base, running: true },
    { ...base, enabled: false },
    { ...base, scheduled_in: 31 },
    { ...base, scheduled_in: null },
    { ...base, last: null },
    { ...base, last: { ...base.last!, outcome: 'failure' } },
    { ...base, last: { ...base.last!, finished_at: '2026-01-01T00:00:01Z' } },
    { ...base, last: { ...base.last!, duration: 2 } },
    { ...base, last: { ...base.last!, exit_code: null } },
  ];
  const memo = new PeerEtagMemo();
  const baseTag = memo.etag(payload({ job: base }), at);
  for (const variant of variants) {
    const tag = memo.etag(payload({ job: variant }), at);
    assert.notEqual(tag, baseTag, JSON.stringify(variant));
    assert.equal(tag, peerPayloadEtag(payload({ job: variant }), at));
    assert.equal(memo.etag(payload({ job: base }), at), baseTag, 'and back');
  }
});
