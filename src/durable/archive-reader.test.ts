// The archive reader over a store that counts its calls (docs/durable-state.md "Output archival"):
// a run is read by its record id alone, one getRecord and no listing, however many archives came
// after it; an id that is no record's is absent; the listing stays within MAX_ARCHIVE_LIST.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../common/index.js';
import { MemoryStateStore } from '../state/index.js';
import { FaultyStateStore } from '../state/testing.js';
import { MAX_ARCHIVE_LIST, listArchives, readArchive } from './archive-reader.js';

const archive = (n: number): object => ({
  finished_at: '2026-01-01T00:00:00+00:00',
  outcome: 'success',
  exit_code: 0,
  redacted: true,
  dropped_lines: 0,
  lines: [{ stream: 'stdout', line: `run ${n}\n` }],
});

async function counted(): Promise<FaultyStateStore> {
  const store = new FaultyStateStore(new MemoryStateStore({ clock: new FakeClock() }));
  await store.open();
  return store;
}

void test('readArchive reads the one record by id, however old, without listing the job', async () => {
  const store = await counted();
  const oldest = await store.append('logs/job', archive(0));
  for (let n = 1; n <= 2 * MAX_ARCHIVE_LIST; n++) await store.append('logs/job', archive(n));
  const before = { get: store.calls('getRecord'), list: store.calls('list') };
  const lookup = await readArchive(store, 'job', oldest.id);
  assert.equal(lookup.kind, 'found');
  if (lookup.kind === 'found') {
    assert.equal(lookup.header.id, oldest.id);
    assert.deepEqual(lookup.lines, [{ stream: 'stdout', line: 'run 0\n' }]);
  }
  assert.equal(store.calls('getRecord') - before.get, 1);
  assert.equal(store.calls('list') - before.list, 0, 'no listing');
  await store.close();
});

void test('an id that is no record of the job is absent: another job, a path, an overlong id', async () => {
  const store = await counted();
  const other = await store.append('logs/other', archive(1));
  await store.append('logs/job', archive(2));
  for (const id of [other.id, `../other/${other.id}`, '..', 'x'.repeat(10_000), '']) {
    assert.deepEqual(await readArchive(store, 'job', id), { kind: 'absent' }, id.slice(0, 40));
  }
  await store.close();
});

void test('listArchives answers the newest, at most MAX_ARCHIVE_LIST whatever is asked', async () => {
  const store = await counted();
  for (let n = 0; n < MAX_ARCHIVE_LIST + 20; n++) await store.append('logs/job', archive(n));
  const listed = await listArchives(store, 'job', 10_000);
  assert.equal(listed.length, MAX_ARCHIVE_LIST);
  const newest = await store.list('logs/job', { limit: 1 });
  assert.equal(listed[0]?.id, newest[0]?.id);
  assert.equal((await listArchives(store, 'job', 0)).length, 1, 'at least one');
  await store.close();
});
