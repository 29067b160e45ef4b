// The state inspector routes through inject() (docs/http-api.md "State inspector"): GET /state, /state/documents
// and /state/records over a real inspector on a metered in-memory store, with their error
// tables, caps, redaction and the health-only fallback when the store does not answer.
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Response as LightResponse } from 'light-my-request';
import { Registry } from 'prom-client';
import { silentLogger } from '../logging/index.js';
import {
  createStateInspector,
  InstrumentedStateStore,
  MemoryStateStore,
  StateMetrics,
  StateWriteQueue,
  type StateInspector,
} from '../state/index.js';
import { FaultyStateStore } from '../state/testing.js';
import { makeJob } from '../config/testing.js';
import { createApiFixture, type ApiFixture } from './http-fixture.test.js';
import type { StateInspectorSource } from './types.js';

const HEADERS = { 'X-Operator': 'yes' };

interface StateApi extends ApiFixture {
  readonly faulty: FaultyStateStore;
  readonly store: InstrumentedStateStore;
}

async function withStateApi(
  run: (api: StateApi) => Promise<void>,
  configured = true,
): Promise<void> {
  let inspector: StateInspector | null = null;
  const source: StateInspectorSource = () => inspector;
  const api = await createApiFixture(
    [
      makeJob({
        name: 'flaky',
        schedule: '@reboot',
        retry: {
          maximumRetries: 3,
          initialDelayMs: 30_000,
          maximumDelayMs: 300_000,
          backoffMultiplier: 2,
        },
      }),
    ],
    { web: { headers: HEADERS }, stateInspector: source },
  );
  const faulty = new FaultyStateStore(new MemoryStateStore({ clock: api.clock }));
  const metrics = new StateMetrics(new Registry());
  const store = new InstrumentedStateStore(faulty, {}, { clock: api.clock, metrics });
  await store.open();
  if (configured) {
    inspector = createStateInspector({
      store,
      clock: api.clock,
      logger: silentLogger(),
      view: () => ({
        backend: 'filesystem',
        path: '/var/lib/yacron2',
        namespace: 'default',
        topology: 'shared',
      }),
      host: 'node-a',
      metrics,
      writes: new StateWriteQueue({ logger: silentLogger() }),
      slots: () => [
        {
          slot: 'slot/backup',
          holder: 'node-a#p#1',
          fence: 7,
          expiresAtMs: 1_767_225_630_000,
          refs: 1,
        },
      ],
    });
  }
  try {
    await run({ ...api, faulty, store });
  } finally {
    await store.close();
    await api.close();
  }
}

const write = (body: object) => () => ({ kind: 'write' as const, body, result: null });

function get(api: ApiFixture, url: string): Promise<LightResponse> {
  return api.app.inject({ method: 'GET', url });
}

/** Once the store holds a call, let the timeout-bounded reads run out on the fake clock. */
async function expireReads(api: StateApi, pending: Promise<unknown>): Promise<void> {
  await api.faulty.untilHeld(1);
  await api.clock.advance(10_000);
  await pending;
}

void describe('GET /state', () => {
  void it('without a state section answers enabled false; the lists are a bare 404', () =>
    withStateApi(async (api) => {
      const state = await get(api, '/state');
      assert.equal(state.statusCode, 200);
      assert.equal(state.headers['x-operator'], 'yes');
      assert.deepEqual(state.json(), { enabled: false });
      for (const url of ['/state/documents?ns=kv/x', '/state/records?stream=runs/x']) {
        const response = await get(api, url);
        assert.equal(response.statusCode, 404, url);
        assert.equal(response.body, '404: Not Found');
        assert.equal(response.headers['x-operator'], undefined);
      }
    }, false));

  void it('shows the view, the store`s counters, its contents by prefix, leases, quarantine and this node', () =>
    withStateApi(async (api) => {
      const { store, clock, runner } = api;
      await store.append('runs/a', { n: 1 });
      await store.append('runs/a', { n: 2 });
      await store.append('runs/b', { n: 1 });
      await store.append('logs/a', { n: 1 });
      await store.updateDocument('kv/team', 'k1', write({ key: 'k1', updatedAt: 1, value: 1 }));
      await store.updateDocument('kv/team', 'k2', write({ key: 'k2', updatedAt: 1, value: 2 }));
      await store.updateDocument('cursor/etl', 'c', write({ name: 'c', updatedAt: 1, value: 'x' }));
      await store.acquireLease('slot/backup', 'node-a#p#1', 30_000);
      const released = await store.acquireLease('dagadvance/x', 'node-b#p#2', 30_000);
      await store.releaseLease('dagadvance/x', 'node-b#p#2', released.fence);
      // An armed retry: the @reboot run fails.
      runner.runs[0]!.fail();
      await clock.advance(0);
      const body = (await get(api, '/state')).json();
      assert.equal(body.enabled, true);
      assert.deepEqual(body.view, {
        backend: 'filesystem',
        path: '/var/lib/yacron2',
        namespace: 'default',
        topology: 'shared',
        shared_locking: true,
        job_set_id: (await get(api, '/job-set-id')).body,
      });
      assert.equal(body.stats.ops.append.count, 4);
      assert.equal(body.stats.ops.append.errors, 0);
      assert.equal(typeof body.stats.ops.append.seconds, 'number');
      assert.deepEqual(body.stats.lock, { acquisitions: 0, wait_seconds: 0 });
      assert.deepEqual(body.stats.throttle, { count: 0, wait_seconds: 0 });
      assert.deepEqual(body.stats.workers, {
        writes: { inflight: 0, capacity: 8, pending: 0, max_pending: 10_000 },
      });
      assert.equal(body.enumerable, true);
      assert.deepEqual(body.records, {
        logs: { count: 1, streams: 1, scopes: [{ scope: 'a', count: 1 }] },
        meta: { count: 1, streams: 1, scopes: [{ scope: '', count: 1 }] },
        runs: {
          count: 3,
          streams: 2,
          scopes: [
            { scope: 'a', count: 2 },
            { scope: 'b', count: 1 },
          ],
        },
      });
      assert.deepEqual(body.documents, {
        cursor: { count: 1, streams: 1, scopes: [{ scope: 'etl', count: 1 }] },
        kv: { count: 2, streams: 1, scopes: [{ scope: 'team', count: 2 }] },
      });
      const now = clock.now();
      assert.deepEqual(body.leases, [
        { name: 'dagadvance/x', holder: 'node-b#p#2', fence: 1, expiresAt: 0, expired: true },
        {
          name: 'slot/backup',
          holder: 'node-a#p#1',
          fence: 1,
          expiresAt: (now - 0 + 30_000) / 1000,
          expired: false,
        },
      ]);
      assert.equal(body.quarantine, 0);
      assert.deepEqual(body.node, {
        host: 'node-a',
        retries: [
          {
            job: 'flaky',
            attempt: 1,
            nextRetryAt: body.node.retries[0].nextRetryAt,
            delaySeconds: 30,
          },
        ],
        slots: [
          {
            slot: 'slot/backup',
            holder: 'node-a#p#1',
            fence: 7,
            expiresAt: 1_767_225_630,
            refs: 1,
          },
        ],
      });
      assert.match(body.node.retries[0].nextRetryAt, /^2026-01-01T00:00:30/);
    }));

  void it('caps the scopes of a prefix and the leases at 200, counting everything', () =>
    withStateApi(async (api) => {
      for (let i = 0; i < 250; i++) {
        const name = `s${String(i).padStart(3, '0')}`;
        await api.store.append(`runs/${name}`, { n: i });
        await api.store.acquireLease(`lock/${name}`, 'h', 60_000);
      }
      const body = (await get(api, '/state')).json();
      assert.equal(body.records.runs.count, 250);
      assert.equal(body.records.runs.streams, 250);
      assert.equal(body.records.runs.scopes.length, 200);
      assert.equal(body.records.runs.scopes[199].scope, 's199');
      assert.equal(body.leases.length, 200);
    }));

  void it('a store that does not answer leaves the health only: enumerable false, empty maps', () =>
    withStateApi(async (api) => {
      await api.store.append('runs/a', { n: 1 });
      api.faulty.setFault('hang', ['inventory']);
      const pending = get(api, '/state');
      await expireReads(api, pending);
      const body = (await pending).json();
      assert.equal(body.enabled, true);
      assert.equal(body.view.backend, 'filesystem');
      assert.equal(body.stats.ops.append.count, 1);
      assert.equal(body.enumerable, false);
      assert.deepEqual(
        {
          records: body.records,
          documents: body.documents,
          leases: body.leases,
          quarantine: body.quarantine,
        },
        { records: {}, documents: {}, leases: [], quarantine: 0 },
      );
      api.faulty.release();
    }));

  void it('a failing store leaves the health only too, and the next request after the cache tries again', () =>
    withStateApi(async (api) => {
      api.faulty.setFault('eio', ['listLeases']);
      assert.equal((await get(api, '/state')).json().enumerable, false);
      api.faulty.setFault('none');
      assert.equal((await get(api, '/state')).json().enumerable, false, 'cached for a few seconds');
      await api.clock.advance(5_000);
      assert.equal((await get(api, '/state')).json().enumerable, true);
    }));

  void it('polling shares one inventory per few seconds', () =>
    withStateApi(async (api) => {
      await Promise.all([get(api, '/state'), get(api, '/state'), get(api, '/state')]);
      await get(api, '/state');
      assert.equal(api.faulty.calls('inventory'), 1);
      await api.clock.advance(5_000);
      await get(api, '/state');
      assert.equal(api.faulty.calls('inventory'), 2);
    }));
});

void describe('GET /state/documents', () => {
  void it('400 unless ns starts with kv/, cursor/ or idem/ (bare, no headers)', () =>
    withStateApi(async (api) => {
      for (const query of ['', '?ns=', '?ns=kv', '?ns=dagrun/x', '?ns=KV/x', '?other=kv/x']) {
        const response = await get(api, `/state/documents${query}`);
        assert.equal(response.statusCode, 400, query);
        assert.equal(response.body, '400: Bad Request');
        assert.equal(response.headers['x-operator'], undefined);
      }
    }));

  void it('reduces KV values to their size and Python type name; cursors and claims verbatim', () =>
    withStateApi(async (api) => {
      const values: [string, unknown][] = [
        ['a-str', 'héllo'],
        ['b-int', 42],
        ['c-float', 1.5],
        ['d-bool', true],
        ['e-dict', { a: [1, 2] }],
        ['f-list', [1, 'x']],
        ['g-none', null],
      ];
      for (const [key, value] of values) {
        await api.store.updateDocument('kv/team', key, write({ key, updatedAt: 1.5, value }));
      }
      await api.store.updateDocument(
        'kv/team',
        'h-novalue',
        write({ key: 'h-novalue', updatedAt: 1 }),
      );
      const response = await get(api, '/state/documents?ns=kv/team');
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['x-operator'], 'yes');
      const body = response.json();
      assert.equal(body.namespace, 'kv/team');
      assert.equal(body.truncated, false);
      assert.deepEqual(
        body.documents.map((doc: Record<string, unknown>) => [
          doc.key,
          doc.valueSize,
          doc.valueType,
        ]),
        [
          ['a-str', 8, 'str'],
          ['b-int', 2, 'int'],
          ['c-float', 3, 'float'],
          ['d-bool', 4, 'bool'],
          ['e-dict', 11, 'dict'],
          ['f-list', 7, 'list'],
          ['g-none', 4, 'NoneType'],
          ['h-novalue', null, 'NoneType'],
        ],
      );
      assert.ok(
        body.documents.every((doc: object) => !('value' in doc)),
        'no value leaves the daemon',
      );
      assert.deepEqual(body.documents[0], {
        key: 'a-str',
        updatedAt: 1.5,
        valueSize: 8,
        valueType: 'str',
      });
      await api.store.updateDocument(
        'cursor/etl',
        'c',
        write({ name: 'c', updatedAt: 2, value: 'secret?' }),
      );
      assert.deepEqual((await get(api, '/state/documents?ns=cursor/etl')).json().documents, [
        { name: 'c', updatedAt: 2, value: 'secret?' },
      ]);
    }));

  void it('answers at most 1000 documents and says so; a store error is an empty list', () =>
    withStateApi(async (api) => {
      for (let i = 0; i < 1001; i++) {
        await api.store.updateDocument('idem/x', `k${i}`, write({ key: `k${i}`, claimedAt: 1 }));
      }
      const body = (await get(api, '/state/documents?ns=idem/x')).json();
      assert.equal(body.documents.length, 1000);
      assert.equal(body.truncated, true);
      api.faulty.setFault('eio', ['listDocuments']);
      const failed = await get(api, '/state/documents?ns=idem/x');
      assert.equal(failed.statusCode, 200);
      assert.deepEqual(failed.json(), { namespace: 'idem/x', documents: [], truncated: false });
    }));
});

void describe('GET /state/records', () => {
  void it('400 without a stream, 403 for logs streams (bare)', () =>
    withStateApi(async (api) => {
      for (const [query, status] of [
        ['', 400],
        ['?stream=', 400],
        ['?limit=5', 400],
        ['?stream=logs', 403],
        ['?stream=logs/backup', 403],
        ['?stream=logs/', 403],
      ] as const) {
        const response = await get(api, `/state/records${query}`);
        assert.equal(response.statusCode, status, query);
        assert.equal(response.body, `${status}: ${status === 400 ? 'Bad Request' : 'Forbidden'}`);
        assert.equal(response.headers['x-operator'], undefined);
      }
      assert.equal((await get(api, '/state/records?stream=logsx/a')).statusCode, 200);
    }));

  void it('answers the newest records first, limit default 100 clamped to [1, 500]', () =>
    withStateApi(async (api) => {
      for (let i = 0; i < 600; i++) await api.store.append('runs/a', { n: i });
      const count = async (query: string): Promise<number> =>
        (await get(api, `/state/records?stream=runs/a${query}`)).json<{ records: unknown[] }>()
          .records.length;
      const body = (await get(api, '/state/records?stream=runs/a&limit=2')).json();
      assert.deepEqual(body, { stream: 'runs/a', records: [{ n: 599 }, { n: 598 }] });
      assert.equal(await count(''), 100);
      assert.equal(await count('&limit=0'), 1);
      assert.equal(await count('&limit=9999'), 500);
      assert.equal(await count('&limit=x'), 100);
      assert.deepEqual((await get(api, '/state/records?stream=runs/none')).json(), {
        stream: 'runs/none',
        records: [],
      });
    }));

  void it('a store error is an empty list, not an error', () =>
    withStateApi(async (api) => {
      api.faulty.setFault('eio', ['list']);
      const response = await get(api, '/state/records?stream=runs/a');
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { stream: 'runs/a', records: [] });
    }));
});

void describe('state routes not wired', () => {
  void it('are not served while the daemon hands in no inspector source', async () => {
    const api = await createApiFixture([makeJob({ name: 'a' })]);
    try {
      for (const url of ['/state', '/state/documents?ns=kv/x', '/state/records?stream=x']) {
        assert.equal((await api.app.inject(url)).statusCode, 404, url);
      }
    } finally {
      await api.close();
    }
  });
});
