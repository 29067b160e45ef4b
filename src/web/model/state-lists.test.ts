import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StateOverviewWire } from './state-inspector.js';
import { artifactRows, claimRows, cursorRows, scopeLists } from './state-lists.js';

const NOW = 1_800_000_000_000;

function overview(
  documents: StateOverviewWire['documents'],
  records: StateOverviewWire['records'],
): StateOverviewWire {
  return {
    enabled: true,
    view: {
      backend: 'filesystem',
      path: '/s',
      namespace: 'default',
      topology: 'single-node',
      shared_locking: false,
      job_set_id: 'v1:x',
    },
    stats: {
      ops: {},
      lock: { acquisitions: 0, wait_seconds: 0 },
      throttle: { count: 0, wait_seconds: 0 },
      workers: {},
    },
    enumerable: true,
    records,
    documents,
    leases: [],
    quarantine: 0,
    node: { host: 'a', retries: [], slots: [] },
  };
}

describe('scopeLists', () => {
  it('finds the scopes holding cursors, claims and artifacts, with the routes that list them', () => {
    const lists = scopeLists(
      overview(
        {
          cursor: { count: 2, streams: 1, scopes: [{ scope: 'etl', count: 2 }] },
          idem: { count: 1, streams: 1, scopes: [{ scope: 'a/b', count: 1 }] },
          kv: { count: 5, streams: 1, scopes: [{ scope: 'etl', count: 5 }] },
        },
        {
          artifacts: {
            count: 3,
            streams: 2,
            scopes: [
              { scope: 'etl', count: 1 },
              { scope: 'dagxcom/d/r1', count: 2 },
            ],
          },
          runs: { count: 9, streams: 1, scopes: [{ scope: 'etl', count: 9 }] },
        },
      ),
    );
    assert.deepEqual(lists.cursors, [
      { kind: 'cursors', scope: 'etl', count: 2, path: '/state/documents?ns=cursor%2Fetl' },
    ]);
    assert.deepEqual(lists.claims, [
      { kind: 'claims', scope: 'a/b', count: 1, path: '/state/documents?ns=idem%2Fa%2Fb' },
    ]);
    assert.deepEqual(
      lists.artifacts.map((entry) => entry.path),
      [
        '/state/records?stream=artifacts%2Fetl&limit=100',
        '/state/records?stream=artifacts%2Fdagxcom%2Fd%2Fr1&limit=100',
      ],
    );
    const empty = scopeLists(overview({}, {}));
    assert.deepEqual(empty, { cursors: [], claims: [], artifacts: [] });
  });
});

describe('rows', () => {
  it('reads cursors, bounding the value and tolerating foreign fields', () => {
    assert.deepEqual(
      cursorRows([
        { name: 'offset', value: { id: 42 }, updatedAt: 1_800_000_000.5 },
        { name: 7, value: 'x'.repeat(300) },
      ]),
      [
        { name: 'offset', value: '{"id":42}', updatedMs: 1_800_000_000_500 },
        { name: '?', value: `"${'x'.repeat(199)}…`, updatedMs: null },
      ],
    );
  });

  it('reads claims: permanent, live and expired', () => {
    assert.deepEqual(
      claimRows(
        [
          { key: 'k1', claimedAt: 1_799_999_000 },
          { key: 'k2', claimedAt: 1_799_999_000, expiresAt: NOW / 1000 + 60 },
          { key: 'k3', claimedAt: 1_799_999_000, expiresAt: NOW / 1000 },
        ],
        NOW,
      ).map((row) => [row.key, row.expiresMs, row.expired]),
      [
        ['k1', null, false],
        ['k2', NOW + 60_000, false],
        ['k3', NOW, true],
      ],
    );
  });

  it('reads artifact records newest first, marking the current version of each name', () => {
    const sha = 'ab'.repeat(32);
    assert.deepEqual(
      artifactRows([
        { at: 3, name: 'report', sha256: sha, size: 10 },
        { at: 2, name: 'data', sha256: sha, size: 5 },
        { at: 1, name: 'report', sha256: sha, size: 9 },
        'garbage',
      ]).map((row) => [row.name, row.current, row.size, row.sha256, row.atMs]),
      [
        ['report', true, 10, 'abababababab', 3000],
        ['data', true, 5, 'abababababab', 2000],
        ['report', false, 9, 'abababababab', 1000],
        ['?', true, null, '?', null],
      ],
    );
  });
});
