import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  boundedJson,
  describeDocument,
  entryPath,
  summarizeState,
  type StateOverviewWire,
} from './state-inspector.js';

const NOW = 1_800_000_000_000;

const overview: StateOverviewWire = {
  enabled: true,
  view: {
    backend: 'filesystem',
    path: '/var/lib/yacron2',
    namespace: 'default',
    topology: 'single-node',
    shared_locking: true,
    job_set_id: 'v1:abc',
  },
  stats: {
    ops: {
      write: { count: 4, errors: 1, seconds: 0.02 },
      append: { count: 0, errors: 0, seconds: 0 },
    },
    lock: { acquisitions: 3, wait_seconds: 0.0015 },
    throttle: { count: 0, wait_seconds: 0 },
    workers: {},
  },
  enumerable: true,
  records: {
    runs: {
      count: 12,
      streams: 2,
      scopes: [
        { scope: 'backup', count: 10 },
        { scope: 'etl', count: 2 },
      ],
    },
    logs: { count: 3, streams: 1, scopes: [{ scope: 'backup', count: 3 }] },
  },
  documents: {
    kv: { count: 2, streams: 1, scopes: [{ scope: 'backup', count: 2 }] },
    manifest: { count: 1, streams: 1, scopes: [{ scope: '', count: 1 }] },
  },
  leases: [
    { name: 'leader', holder: 'a', fence: 7, expiresAt: NOW / 1000 + 12, expired: false },
    { name: 'old', holder: 'b', fence: 1, expiresAt: NOW / 1000 - 5, expired: true },
  ],
  quarantine: 2,
  node: {
    host: 'a',
    retries: [
      { job: 'backup', attempt: 1, nextRetryAt: '2027-01-15T08:00:12+00:00', delaySeconds: 12 },
    ],
    slots: [],
  },
};

describe('summarizeState', () => {
  it('is null without a store', () => {
    assert.equal(summarizeState({ enabled: false }, NOW), null);
  });

  it('lists identity, ops with mean latency, waits, leases with time left', () => {
    const summary = summarizeState(overview, NOW)!;
    assert.deepEqual(summary.identity, [
      ['backend', 'filesystem'],
      ['path', '/var/lib/yacron2'],
      ['namespace', 'default'],
      ['topology', 'single-node'],
      ['shared locking', 'yes'],
      ['job set', 'v1:abc'],
    ]);
    assert.deepEqual(summary.ops, [
      { op: 'append', count: 0, errors: 0, meanMs: null },
      { op: 'write', count: 4, errors: 1, meanMs: 5 },
    ]);
    assert.equal(
      summary.waits,
      'lock: 3 acquisitions, 0.002 s waited · throttle: 0, 0.000 s waited',
    );
    assert.deepEqual(
      summary.leases.map((l) => [l.name, l.holder, l.leftMs, l.expired]),
      [
        ['leader', 'a', 12_000, false],
        ['old', 'b', -5000, true],
      ],
    );
    assert.equal(summary.quarantine, 2);
    assert.equal(summary.retries.length, 1);
  });

  it('says which namespaces and streams can be opened (never logs)', () => {
    const summary = summarizeState(overview, NOW)!;
    assert.deepEqual(
      summary.entries.map((e) => [e.kind, e.name, e.count, e.openable]),
      [
        ['documents', 'kv/backup', 2, true],
        ['documents', 'manifest', 1, false],
        ['records', 'logs/backup', 3, false],
        ['records', 'runs/backup', 10, true],
        ['records', 'runs/etl', 2, true],
      ],
    );
    assert.equal(entryPath(summary.entries[0]!), '/state/documents?ns=kv%2Fbackup');
    assert.equal(
      entryPath(summary.entries[3]!, 20),
      '/state/records?stream=runs%2Fbackup&limit=20',
    );
  });
});

describe('documents and records', () => {
  it('shows a KV document by key, type and size, never a value', () => {
    assert.deepEqual(
      describeDocument({ key: 'last-id', updatedAt: 1, valueSize: 5, valueType: 'int' }),
      { key: 'last-id', detail: 'int · 5 B (value not shown)' },
    );
    assert.deepEqual(describeDocument({ key: 'k', valueSize: null, valueType: 'NoneType' }), {
      key: 'k',
      detail: 'NoneType · size unknown (value not shown)',
    });
  });

  it('shows other documents as bounded JSON', () => {
    assert.deepEqual(describeDocument({ id: 'c1', position: 3 }), {
      key: 'c1',
      detail: '{"id":"c1","position":3}',
    });
    assert.equal(boundedJson('x'.repeat(10), 5), '"xxxx…');
  });
});
