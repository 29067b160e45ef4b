// The one contract every StateStore is held to (docs/architecture.md "Seams"): run by
// store-memory.test.ts and store-fs.test.ts, and by any wrapper's tests. Time moves only through
// the FakeClock. The hostile record files (torn, foreign, newer) run where the backend has files.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { isYacronError, type ErrorCode, FakeClock } from '../common/index.js';
import { encodeName } from './name-encoding.js';
import { MAX_RECORD_ID_BYTES } from './store-checks.js';
import type { DocumentChange, StateStore } from './types.js';

export interface ContractStore {
  readonly store: StateStore;
  /** Called after the store is closed (remove temp dirs). */
  readonly dispose?: () => Promise<void>;
  /**
   * Backends that keep records in files: write a file named `fileName` with `text` into the
   * stream's directory (creating it), as a crash, a foreign build or an attacker could. The
   * hostile-file cases run only where this exists.
   */
  readonly plantRecordFile?: (stream: string, fileName: string, text: string) => Promise<void>;
}

export type PlantRecordFile = NonNullable<ContractStore['plantRecordFile']>;

/** Build a fresh, not yet opened, empty store on `clock`. */
export type MakeStore = (clock: FakeClock) => Promise<ContractStore>;

const START_MS = Date.UTC(2026, 0, 1, 12);

async function withStore(
  makeStore: MakeStore,
  body: (store: StateStore, clock: FakeClock, made: ContractStore) => Promise<void>,
): Promise<void> {
  const clock = new FakeClock(START_MS);
  const made = await makeStore(clock);
  await made.store.open();
  try {
    await body(made.store, clock, made);
  } finally {
    await made.store.close();
    await made.dispose?.();
  }
}

function rejectsWith(code: ErrorCode): (error: unknown) => boolean {
  return (error) => isYacronError(error, code);
}

export function storeContract(name: string, makeStore: MakeStore): void {
  const it = (
    title: string,
    body: (store: StateStore, clock: FakeClock) => Promise<void>,
  ): void => {
    test(title, () => withStore(makeStore, body));
  };
  /** A case for backends with record files (ContractStore.plantRecordFile); skipped elsewhere. */
  const withFiles = (
    title: string,
    body: (store: StateStore, plant: PlantRecordFile) => Promise<void>,
  ): void => {
    test(title, (t) =>
      withStore(makeStore, async (store, _clock, made) => {
        if (made.plantRecordFile === undefined) {
          t.skip('this backend keeps no record files');
          return;
        }
        await body(store, made.plantRecordFile);
      }),
    );
  };

  describe(`${name} honours the StateStore contract`, () => {
    describe('streams', () => {
      it('append() returns the stored record and list() gives records newest first', async (store, clock) => {
        const first = await store.append('runs/backup', { n: 1 });
        assert.equal(first.stream, 'runs/backup');
        assert.equal(first.writtenAtMs, START_MS);
        assert.deepEqual(first.data, { n: 1 });
        await clock.advance(5);
        await store.append('runs/backup', { n: 2 });
        await store.append('runs/backup', { n: 3 });
        const listed = await store.list('runs/backup');
        assert.deepEqual(
          listed.map((record) => record.data.n),
          [3, 2, 1],
        );
        assert.equal(listed[2]!.id, first.id);
        assert.equal(listed[0]!.writtenAtMs, START_MS + 5);
        assert.deepEqual(await store.list('runs/other'), []);
      });

      it('record ids follow the reference grammar <time %020.6f>-<instance>-<seq>', async (store, clock) => {
        await clock.advance(0.5);
        const record = await store.append('runs/job', { n: 1 });
        assert.match(record.id, /^\d{13}\.\d{6}-[0-9a-f]{12}-\d{12}$/);
        assert.equal(record.id.slice(0, 20), `${String(START_MS / 1000).padStart(13, '0')}.000500`);
        assert.equal(record.writtenAtMs, START_MS + 0.5);
        assert.equal((await store.list('runs/job'))[0]?.id, record.id);
      });

      it('list() is bounded by limit', async (store) => {
        for (let n = 0; n < 10; n++) await store.append('s', { n });
        assert.deepEqual(
          (await store.list('s', { limit: 3 })).map((record) => record.data.n),
          [9, 8, 7],
        );
        assert.deepEqual(await store.list('s', { limit: 0 }), []);
        assert.equal((await store.list('s', { limit: 100 })).length, 10);
      });

      it('record ids stay in write order when the wall clock steps backwards', async (store, clock) => {
        await store.append('s', { n: 1 });
        clock.setWall(START_MS - 60_000);
        await store.append('s', { n: 2 });
        const [newest, oldest] = await store.list('s');
        assert.equal(newest!.data.n, 2);
        assert.ok(newest!.id > oldest!.id);
      });

      it('data round-trips through JSON; non-objects and cycles are refused', async (store) => {
        const record = await store.append('s', {
          text: 'é🙂',
          nested: { list: [1, null, 'x'] },
          gone: undefined,
          at: new Date(START_MS),
        });
        const expected = {
          text: 'é🙂',
          nested: { list: [1, null, 'x'] },
          at: '2026-01-01T12:00:00.000Z',
        };
        assert.deepEqual(record.data, expected);
        assert.deepEqual((await store.list('s'))[0]!.data, expected);
        for (const bad of [null, [1, 2], 5, 'text'] as unknown[]) {
          await assert.rejects(
            store.append('s', bad as object),
            rejectsWith('YC_ERR_STATE_VALUE_INVALID'),
          );
        }
        const cyclic: Record<string, unknown> = {};
        cyclic.self = cyclic;
        await assert.rejects(store.append('s', cyclic), rejectsWith('YC_ERR_STATE_VALUE_INVALID'));
        assert.equal((await store.list('s')).length, 1);
      });

      it('100 concurrent appends to one stream all land with distinct ids', async (store) => {
        await Promise.all(Array.from({ length: 100 }, (_, n) => store.append('s', { n })));
        const listed = await store.list('s');
        assert.equal(listed.length, 100);
        assert.equal(new Set(listed.map((record) => record.id)).size, 100);
        assert.deepEqual(
          listed.map((record) => record.data.n as number).sort((a, b) => a - b),
          Array.from({ length: 100 }, (_, n) => n),
        );
      });

      it('deriveMax() is the max of a field, ignoring records without a comparable value', async (store, clock) => {
        assert.equal(await store.deriveMax('s', 'at'), undefined);
        await store.append('s', { at: 30, outcome: 'success' });
        await clock.advance(1);
        await store.append('s', { at: 50, outcome: 'cancelled' });
        await store.append('s', { at: 'not-a-number-but-a-string' });
        await store.append('s', { other: 99 });
        await store.append('s', { at: null });
        await store.append('s', { at: 10, outcome: 'failure' });
        const max = await store.deriveMax('s', 'at');
        assert.equal(max?.value, 50);
        assert.equal(max?.record.data.outcome, 'cancelled');
        const real = await store.deriveMax('s', 'at', {
          where: (data) => data.outcome !== 'cancelled' && typeof data.at === 'number',
        });
        assert.equal(real?.value, 30);
        await store.append('iso', { finished_at: '2026-01-01T10:00:00Z' });
        await store.append('iso', { finished_at: '2026-01-02T09:00:00Z' });
        await store.append('iso', { finished_at: '2025-12-31T23:00:00Z' });
        assert.equal((await store.deriveMax('iso', 'finished_at'))?.value, '2026-01-02T09:00:00Z');
      });

      it('deriveMax() picks the newest record on a tie', async (store) => {
        await store.append('s', { at: 5, which: 'old' });
        await store.append('s', { at: 5, which: 'new' });
        assert.equal((await store.deriveMax('s', 'at'))?.record.data.which, 'new');
      });

      it('prune() keeps the newest N records and reports how many it deleted', async (store) => {
        for (let n = 0; n < 7; n++) await store.append('s', { n });
        assert.equal(await store.prune('s', 3), 4);
        assert.deepEqual(
          (await store.list('s')).map((record) => record.data.n),
          [6, 5, 4],
        );
        assert.equal(await store.prune('s', 3), 0);
        assert.equal(await store.prune('absent', 3), 0);
        assert.equal(await store.prune('s', 0), 3);
        assert.deepEqual(await store.list('s'), []);
        await assert.rejects(store.prune('s', -1), rejectsWith('YC_ERR_STATE_VALUE_INVALID'));
      });

      it('deleteStream() removes a stream, which can then be written again', async (store) => {
        await store.append('runs/a', { n: 1 });
        assert.equal(await store.deleteStream('runs/a'), true);
        assert.equal(await store.deleteStream('runs/a'), false);
        assert.deepEqual(await store.list('runs/a'), []);
        assert.deepEqual(await store.listStreams(), ['meta'], 'only the version stamp is left');
        await store.append('runs/a', { n: 2 });
        assert.deepEqual(
          (await store.list('runs/a')).map((record) => record.data.n),
          [2],
        );
      });

      it('listStreams() keeps hostile names distinct and filters by prefix', async (store) => {
        const names = [
          'runs/Backup',
          'runs/backup',
          'runs/CON',
          'runs/..',
          'runs/a/b',
          'runs/日本',
          'logs/x',
          '.',
          'meta2',
        ];
        for (const stream of names) await store.append(stream, { stream });
        assert.deepEqual(await store.listStreams(), [...names, 'meta'].sort());
        assert.deepEqual(
          await store.listStreams('runs/'),
          names.filter((n) => n.startsWith('runs/')).sort(),
        );
        for (const stream of names) {
          const [only, ...rest] = await store.list(stream);
          assert.equal(rest.length, 0, stream);
          assert.equal(only!.data.stream, stream);
        }
      });

      it('empty names are refused', async (store) => {
        await assert.rejects(store.append('', {}), rejectsWith('YC_ERR_STATE_NAME_INVALID'));
        await assert.rejects(store.list(''), rejectsWith('YC_ERR_STATE_NAME_INVALID'));
        await assert.rejects(
          store.acquireLease('', 'h', 1000),
          rejectsWith('YC_ERR_STATE_NAME_INVALID'),
        );
      });
    });

    describe('getRecord', () => {
      it('reads one record by id as list() gives it; absent for an unknown id or stream', async (store, clock) => {
        const first = await store.append('logs/job', { n: 1 });
        await clock.advance(5);
        const second = await store.append('logs/job', {
          n: 2,
          text: 'é🙂',
          at: new Date(START_MS),
        });
        const other = await store.append('logs/other', { n: 3 });
        assert.deepEqual(await store.getRecord('logs/job', first.id), first);
        const newest = (await store.list('logs/job'))[0];
        assert.deepEqual(await store.getRecord('logs/job', second.id), newest);
        assert.deepEqual((await store.getRecord('logs/job', second.id))?.data, {
          n: 2,
          text: 'é🙂',
          at: '2026-01-01T12:00:00.000Z',
        });
        assert.equal((await store.getRecord('logs/job', second.id))?.writtenAtMs, START_MS + 5);
        assert.equal(await store.getRecord('logs/job', other.id), undefined, "another stream's");
        assert.equal(await store.getRecord('logs/absent', first.id), undefined);
        const unknown = `${first.id.slice(0, -12)}999999999999`;
        assert.equal(await store.getRecord('logs/job', unknown), undefined);
      });

      it('finds a record however many were written after it', async (store) => {
        const oldest = await store.append('logs/job', { n: 0 });
        for (let n = 1; n <= 150; n++) await store.append('logs/job', { n });
        assert.deepEqual((await store.getRecord('logs/job', oldest.id))?.data, { n: 0 });
      });

      it('a pruned record or a deleted stream is absent', async (store) => {
        const old = await store.append('logs/job', { n: 1 });
        const kept = await store.append('logs/job', { n: 2 });
        assert.equal(await store.prune('logs/job', 1), 1);
        assert.equal(await store.getRecord('logs/job', old.id), undefined);
        assert.deepEqual((await store.getRecord('logs/job', kept.id))?.data, { n: 2 });
        assert.equal(await store.deleteStream('logs/job'), true);
        assert.equal(await store.getRecord('logs/job', kept.id), undefined);
      });

      it('hostile ids are absent, never a path: separators, dots, NUL, overlong, lone surrogates', async (store) => {
        const secret = await store.append('runs/secret', { secret: true });
        const mine = await store.append('logs/job', { n: 1 });
        const token = encodeName('runs/secret');
        const hostile = [
          '',
          '.',
          '..',
          `../${token}/${secret.id}`,
          `../../records/${token}/${secret.id}`,
          `..\\${token}\\${secret.id}`,
          `${mine.id}/`,
          `/${mine.id}`,
          `${mine.id}\0`,
          '/etc/passwd',
          '\ud800',
          `${mine.id}\udc00`,
          'x'.repeat(MAX_RECORD_ID_BYTES + 1),
          'é'.repeat(MAX_RECORD_ID_BYTES / 2 + 1),
          'x'.repeat(100_000),
        ];
        for (const id of hostile) {
          assert.equal(await store.getRecord('logs/job', id), undefined, JSON.stringify(id));
        }
        // A name at the length cap is looked up (and is absent) without an error.
        assert.equal(await store.getRecord('logs/job', 'x'.repeat(MAX_RECORD_ID_BYTES)), undefined);
        // Stream names are the store's names: `..` is a stream like any other, never a parent.
        assert.equal(await store.getRecord('..', secret.id), undefined);
        assert.equal(await store.getRecord('logs/..', secret.id), undefined);
        await assert.rejects(
          store.getRecord('', mine.id),
          rejectsWith('YC_ERR_STATE_NAME_INVALID'),
        );
        assert.deepEqual((await store.getRecord('logs/job', mine.id))?.data, { n: 1 });
      });

      withFiles(
        'a record file that is not an envelope is quarantined and absent; a newer scheme fails the read; any *.json name is a record',
        async (store, plant) => {
          const good = await store.append('logs/job', { n: 1 });
          const torn = `${good.id.slice(0, -12)}000000000777`;
          await plant('logs/job', `${torn}.json`, '{"schemaVersion":"v1","data":{"n":');
          const notObject = `${good.id.slice(0, -12)}000000000778`;
          await plant('logs/job', `${notObject}.json`, '{"schemaVersion":"v1","data":[1]}');
          const newer = `${good.id.slice(0, -12)}000000000779`;
          await plant('logs/job', `${newer}.json`, '{"data":{"n":9},"schemaVersion":"v9"}');
          await plant('logs/job', 'foreign.json', '{"data":{"n":5},"schemaVersion":"v1"}');
          await plant('logs/job', '...json', '{"data":{"n":6},"schemaVersion":"v1"}');
          await plant('logs/job', 'notes.txt', '{"data":{"n":7},"schemaVersion":"v1"}');

          assert.equal(await store.getRecord('logs/job', torn), undefined);
          assert.equal(await store.getRecord('logs/job', torn), undefined, 'and stays absent');
          assert.equal(await store.getRecord('logs/job', notObject), undefined);
          await assert.rejects(
            store.getRecord('logs/job', newer),
            rejectsWith('YC_ERR_STATE_SCHEMA'),
          );
          const foreign = await store.getRecord('logs/job', 'foreign');
          assert.deepEqual(foreign?.data, { n: 5 });
          assert.equal(foreign?.writtenAtMs, Infinity, 'a name without a time is never old');
          assert.deepEqual((await store.getRecord('logs/job', '..'))?.data, { n: 6 });
          assert.equal(await store.getRecord('logs/job', 'notes'), undefined, 'not a *.json');
          assert.deepEqual((await store.getRecord('logs/job', good.id))?.data, { n: 1 });
          const description = await store.describe();
          assert.equal(description.quarantinedThisProcess.malformed, 2);
        },
      );
    });

    describe('documents', () => {
      const write = (body: object): DocumentChange<null> => ({ kind: 'write', body, result: null });

      it('updateDocument() writes a body that getDocument() reads back, with its key and write time', async (store, clock) => {
        assert.equal(await store.getDocument('kv/job', 'a'), undefined);
        await clock.advance(1000);
        await store.updateDocument('kv/job', 'a', () => write({ key: 'a', value: { n: 1 } }));
        assert.deepEqual(await store.getDocument('kv/job', 'a'), {
          ns: 'kv/job',
          key: 'a',
          body: { key: 'a', value: { n: 1 } },
          modifiedAtMs: START_MS + 1000,
        });
        for (const value of ['text', 42, null, [1, 'two'], true, 0.5]) {
          await store.updateDocument('kv/job', 'b', () => write({ value }));
          assert.deepEqual((await store.getDocument('kv/job', 'b'))?.body, { value });
        }
        for (const bad of [null, [1], 'text'] as unknown[]) {
          await assert.rejects(
            store.updateDocument('kv/job', 'c', () => write(bad as object)),
            rejectsWith('YC_ERR_STATE_VALUE_INVALID'),
          );
        }
        assert.equal(await store.getDocument('kv/job', 'c'), undefined);
      });

      it('the decision sees the current body; keep writes nothing, delete removes', async (store, clock) => {
        const seen: unknown[] = [];
        const result = await store.updateDocument('cursor/etl', 'offset', (current) => {
          seen.push(current);
          return { kind: 'write', body: { name: 'offset', value: 5 }, result: 'first' };
        });
        assert.equal(result, 'first');
        await clock.advance(60_000);
        const kept = await store.updateDocument('cursor/etl', 'offset', (current) => {
          seen.push(current?.body);
          return { kind: 'keep', result: current?.body.value };
        });
        assert.equal(kept, 5);
        assert.deepEqual(seen, [undefined, { name: 'offset', value: 5 }]);
        assert.equal(
          (await store.getDocument('cursor/etl', 'offset'))?.modifiedAtMs,
          START_MS,
          'keep wrote nothing',
        );
        const existed = await store.updateDocument('cursor/etl', 'offset', (current) =>
          current ? { kind: 'delete', result: true } : { kind: 'keep', result: false },
        );
        assert.equal(existed, true);
        assert.equal(await store.getDocument('cursor/etl', 'offset'), undefined);
        const again = await store.updateDocument('cursor/etl', 'offset', (current) =>
          current ? { kind: 'delete', result: true } : { kind: 'keep', result: false },
        );
        assert.equal(again, false);
      });

      it('a decision that throws changes nothing and rejects the call', async (store) => {
        await store.updateDocument('kv/job', 'k', () => write({ value: 1 }));
        await assert.rejects(
          store.updateDocument('kv/job', 'k', () => {
            throw new Error('refused by the caller');
          }),
          /refused by the caller/,
        );
        assert.deepEqual((await store.getDocument('kv/job', 'k'))?.body, { value: 1 });
      });

      it('concurrent read-modify-writes of one document lose no update', async (store) => {
        const increment = (): Promise<null> =>
          store.updateDocument('counters', 'n', (current) =>
            write({ value: ((current?.body.value as number | undefined) ?? 0) + 1 }),
          );
        await Promise.all(Array.from({ length: 20 }, increment));
        assert.deepEqual((await store.getDocument('counters', 'n'))?.body, { value: 20 });
      });

      it('exactly one of ten concurrent create-if-absent decisions wins', async (store) => {
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, n) =>
            store.updateDocument('idem/billing', 'invoice', (current) =>
              current
                ? { kind: 'keep', result: false }
                : { kind: 'write', body: { key: 'invoice', by: n }, result: true },
            ),
          ),
        );
        assert.equal(results.filter(Boolean).length, 1);
      });

      it('listDocuments() gives one namespace sorted by key; namespaces list by prefix', async (store) => {
        for (const [ns, key] of [
          ['kv/a', 'x'],
          ['kv/a', 'Y'],
          ['kv/a', 'b/c'],
          ['kv/a/b', 'c'],
          ['kv/b', 'x'],
          ['cursor/a', 'w'],
        ] as const) {
          await store.updateDocument(ns, key, () => write({ key, ns }));
        }
        const listed = await store.listDocuments('kv/a');
        assert.deepEqual(
          listed.map((doc) => doc.key),
          ['Y', 'b/c', 'x'],
        );
        assert.deepEqual(listed[1]?.body, { key: 'b/c', ns: 'kv/a' });
        assert.deepEqual(
          (await store.listDocuments('kv/a/b')).map((doc) => doc.key),
          ['c'],
        );
        assert.deepEqual(await store.listDocuments('kv/none'), []);
        assert.deepEqual(await store.listDocumentNamespaces('kv/'), ['kv/a', 'kv/a/b', 'kv/b']);
        assert.deepEqual(await store.listDocumentNamespaces(), [
          'cursor/a',
          'kv/a',
          'kv/a/b',
          'kv/b',
        ]);
      });

      it('a key too long for a file name lists back by the key its body names', async (store) => {
        const key = 'k'.repeat(140);
        await store.updateDocument('kv/job', key, () => write({ key, value: 1 }));
        assert.deepEqual((await store.getDocument('kv/job', key))?.body, { key, value: 1 });
        assert.deepEqual(
          (await store.listDocuments('kv/job')).map((doc) => doc.key),
          [key],
        );
      });

      it('empty names are refused', async (store) => {
        await assert.rejects(store.getDocument('', 'k'), rejectsWith('YC_ERR_STATE_NAME_INVALID'));
        await assert.rejects(
          store.updateDocument('kv/job', '', () => write({})),
          rejectsWith('YC_ERR_STATE_NAME_INVALID'),
        );
      });
    });

    describe('blobs', () => {
      it('putBlob() stores content by sha256; identical bytes are stored once', async (store, clock) => {
        const bytes = new TextEncoder().encode('report,1\n');
        const sha = await store.putBlob(bytes);
        assert.equal(sha, createHash('sha256').update(bytes).digest('hex'));
        assert.deepEqual(await store.getBlob(sha), bytes);
        assert.equal(await store.hasBlob(sha), true);
        const [info] = await store.listBlobs();
        assert.deepEqual(info, {
          sha256: sha,
          sizeBytes: bytes.byteLength,
          modifiedAtMs: START_MS,
        });
        await clock.advance(60_000);
        assert.equal(await store.putBlob(Uint8Array.from(bytes)), sha);
        const blobs = await store.listBlobs();
        assert.equal(blobs.length, 1);
        assert.equal(blobs[0]!.modifiedAtMs, START_MS + 60_000, 're-publishing refreshes the age');
        assert.equal(await store.deleteBlob(sha), true);
        assert.equal(await store.deleteBlob(sha), false);
        assert.equal(await store.getBlob(sha), undefined);
        assert.equal(await store.hasBlob(sha), false);
        const empty = await store.putBlob(new Uint8Array());
        assert.deepEqual(await store.getBlob(empty), new Uint8Array());
      });

      it('blob names must be sha256 hex (never a path)', async (store) => {
        for (const bad of ['../../etc/passwd', 'ABC', 'a'.repeat(63), 'A'.repeat(64)]) {
          await assert.rejects(store.getBlob(bad), rejectsWith('YC_ERR_STATE_NAME_INVALID'));
          await assert.rejects(store.deleteBlob(bad), rejectsWith('YC_ERR_STATE_NAME_INVALID'));
        }
      });
    });

    describe('leases', () => {
      it('a first acquire starts tenure 1 and blocks other holders until the TTL passes', async (store, clock) => {
        const a = await store.acquireLease('slots/job', 'node-a', 30_000);
        assert.deepEqual(a, {
          acquired: true,
          holder: 'node-a',
          fence: 1,
          expiresAtMs: START_MS + 30_000,
          fresh: true,
        });
        await clock.advance(29_999);
        const b = await store.acquireLease('slots/job', 'node-b', 30_000);
        assert.deepEqual(b, {
          acquired: false,
          holder: 'node-a',
          fence: 1,
          expiresAtMs: START_MS + 30_000,
          fresh: false,
        });
        await clock.advance(1);
        const taken = await store.acquireLease('slots/job', 'node-b', 30_000);
        assert.deepEqual(taken, {
          acquired: true,
          holder: 'node-b',
          fence: 2,
          expiresAtMs: START_MS + 60_000,
          fresh: true,
          previousHolder: 'node-a',
        });
      });

      it('re-acquiring a held lease extends it without moving the fence', async (store, clock) => {
        await store.acquireLease('l', 'a', 10_000);
        await clock.advance(5_000);
        const again = await store.acquireLease('l', 'a', 10_000);
        assert.deepEqual(again, {
          acquired: true,
          holder: 'a',
          fence: 1,
          expiresAtMs: START_MS + 15_000,
          fresh: false,
        });
        await clock.advance(10_000);
        const afterExpiry = await store.acquireLease('l', 'a', 10_000);
        assert.equal(afterExpiry.fence, 2, 'a new tenure of the same holder is a new fence');
        assert.equal(afterExpiry.fresh, true);
        assert.equal(afterExpiry.previousHolder, undefined);
      });

      it('fences strictly increase across holders, releases and expiries', async (store, clock) => {
        let last = 0;
        const holders = ['a', 'b', 'c'];
        for (let round = 0; round < 12; round++) {
          const holder = holders[round % 3]!;
          const result = await store.acquireLease('l', holder, 1000);
          assert.ok(result.acquired);
          assert.ok(result.fence > last, `round ${round}: ${result.fence} > ${last}`);
          last = result.fence;
          if (round % 2 === 0) assert.ok(await store.releaseLease('l', holder, result.fence));
          else await clock.advance(1000);
        }
        assert.equal((await store.inspectLease('l'))?.fence, last);
      });

      it('renewLease() extends only the current tenure', async (store, clock) => {
        const a = await store.acquireLease('l', 'a', 1000);
        await clock.advance(500);
        const renewed = await store.renewLease('l', 'a', a.fence, 1000);
        assert.deepEqual(renewed, {
          acquired: true,
          holder: 'a',
          fence: 1,
          expiresAtMs: START_MS + 1500,
          fresh: false,
        });
        assert.equal((await store.renewLease('l', 'a', a.fence + 1, 1000)).acquired, false);
        assert.equal((await store.renewLease('l', 'b', a.fence, 1000)).acquired, false);
        await clock.advance(2000);
        const lateButUntaken = await store.renewLease('l', 'a', a.fence, 1000);
        assert.equal(lateButUntaken.acquired, true, 'nobody took it over: the fence proves it');
        await clock.advance(1000);
        const b = await store.acquireLease('l', 'b', 1000);
        assert.equal(b.fence, 2);
        const stale = await store.renewLease('l', 'a', a.fence, 1000);
        assert.deepEqual(stale, {
          acquired: false,
          holder: 'b',
          fence: 2,
          expiresAtMs: START_MS + 4500,
          fresh: false,
        });
        assert.equal((await store.renewLease('absent', 'a', 1, 1000)).acquired, false);
      });

      it('releaseLease() frees the lease for others but keeps the fence', async (store) => {
        const a = await store.acquireLease('l', 'a', 60_000);
        assert.equal(await store.releaseLease('l', 'b', a.fence), false);
        assert.equal(await store.releaseLease('l', 'a', a.fence + 1), false);
        assert.equal(await store.releaseLease('l', 'a', a.fence), true);
        assert.equal(await store.releaseLease('l', 'a', a.fence), false);
        const state = await store.inspectLease('l');
        assert.equal(state?.holder, 'a', 'a release keeps the holder');
        assert.equal(state?.fence, 1);
        assert.equal(state?.expiresAtMs, 0, 'and sets the expiry to 0');
        const renew = await store.renewLease('l', 'a', a.fence, 60_000);
        assert.equal(renew.acquired, false, 'a released tenure cannot be renewed');
        const b = await store.acquireLease('l', 'b', 60_000);
        assert.equal(b.fence, 2);
        assert.equal(
          b.previousHolder,
          undefined,
          'a released lease has no previous holder to reconcile',
        );
      });

      it('concurrent acquires by different holders: exactly one wins', async (store) => {
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, n) => store.acquireLease('race', `h${n}`, 30_000)),
        );
        const winners = results.filter((result) => result.acquired);
        assert.equal(winners.length, 1);
        assert.equal(winners[0]!.fence, 1);
        for (const loser of results.filter((result) => !result.acquired)) {
          assert.equal(loser.holder, winners[0]!.holder);
        }
      });

      it('inspect, list and delete', async (store, clock) => {
        assert.equal(await store.inspectLease('slots/a'), undefined);
        await store.acquireLease('slots/a', 'h', 1000);
        await store.acquireLease('slots/B', 'h', 1000);
        await store.acquireLease('dagadvance/d/1', 'h', 1000);
        assert.deepEqual(await store.inspectLease('slots/a'), {
          name: 'slots/a',
          holder: 'h',
          fence: 1,
          expiresAtMs: START_MS + 1000,
          updatedAtMs: START_MS,
        });
        assert.deepEqual(
          (await store.listLeases('slots/')).map((lease) => lease.name),
          ['slots/B', 'slots/a'],
        );
        assert.equal((await store.listLeases()).length, 3);
        assert.equal(await store.deleteLease('dagadvance/d/1'), true);
        assert.equal(await store.deleteLease('dagadvance/d/1'), false);
        await clock.advance(1);
        assert.equal((await store.acquireLease('dagadvance/d/1', 'h2', 1000)).fence, 1);
      });

      it('bad TTLs and holders are refused', async (store) => {
        for (const ttl of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
          await assert.rejects(
            store.acquireLease('l', 'a', ttl),
            rejectsWith('YC_ERR_STATE_VALUE_INVALID'),
          );
        }
        await assert.rejects(
          store.acquireLease('l', '', 1000),
          rejectsWith('YC_ERR_STATE_VALUE_INVALID'),
        );
      });
    });

    describe('lifecycle and inventory', () => {
      it('describe() counts what the store holds', async (store) => {
        await store.append('runs/a', { n: 1 });
        await store.append('runs/a', { n: 2 });
        await store.append('runs/b', { n: 1 });
        await store.updateDocument('kv/x', 'k', () => ({ kind: 'write', body: {}, result: null }));
        await store.putBlob(new Uint8Array([1, 2, 3]));
        await store.acquireLease('l', 'h', 1000);
        const description = await store.describe();
        assert.equal(description.schemaVersion, 'v1');
        assert.ok(['filesystem', 'memory'].includes(description.backend));
        assert.equal(description.namespace, 'default');
        const { counts } = description;
        assert.equal(counts.streams, 3, 'runs/a, runs/b and the meta stamp');
        assert.equal(counts.records, 4);
        assert.equal(counts.docs, 1);
        assert.equal(counts.blobs, 1);
        assert.equal(counts.leases, 1);
        assert.equal(counts.quarantined, 0);
        assert.equal(counts.tempFiles, 0);
        assert.deepEqual(description.warnings, []);
      });

      it('inventory() names every stream and document namespace with its size, sorted', async (store) => {
        await store.append('runs/b', { n: 1 });
        await store.append('runs/a', { n: 1 });
        await store.append('runs/a', { n: 2 });
        await store.append('Logs/Ü x', { n: 1 });
        const write = (): DocumentChange<null> => ({ kind: 'write', body: { v: 1 }, result: null });
        await store.updateDocument('kv/team', 'a', write);
        await store.updateDocument('kv/team', 'b', write);
        await store.updateDocument('cursor/x', 'c', write);
        await store.updateDocument('kv/gone', 'd', write);
        await store.updateDocument('kv/gone', 'd', () => ({ kind: 'delete', result: null }));
        const inventory = await store.inventory();
        assert.deepEqual(
          inventory.streams.filter((stream) => stream.name !== 'meta'),
          [
            { name: 'Logs/Ü x', records: 1 },
            { name: 'runs/a', records: 2 },
            { name: 'runs/b', records: 1 },
          ],
        );
        assert.deepEqual(
          inventory.documentNamespaces.filter((ns) => ns.documents > 0),
          [
            { ns: 'cursor/x', documents: 1 },
            { ns: 'kv/team', documents: 2 },
          ],
        );
      });

      it('operations on a closed store reject with YC_ERR_STATE_CLOSED; close is idempotent', async (store) => {
        await store.close();
        await store.close();
        await assert.rejects(store.append('s', {}), rejectsWith('YC_ERR_STATE_CLOSED'));
        await assert.rejects(
          store.acquireLease('l', 'h', 1000),
          rejectsWith('YC_ERR_STATE_CLOSED'),
        );
        await store.open();
        await store.append('s', { n: 1 });
        assert.equal((await store.list('s')).length, 1, 'reopening finds the data');
      });

      it('works with `await using`', async () => {
        const clock = new FakeClock(START_MS);
        const made = await makeStore(clock);
        {
          await using store = made.store;
          await store.open();
          await store.append('s', {});
        }
        await assert.rejects(made.store.list('s'), rejectsWith('YC_ERR_STATE_CLOSED'));
        await made.dispose?.();
      });
    });
  });
}
