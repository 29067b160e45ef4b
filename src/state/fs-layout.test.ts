// The on-disk model in the reference's layout: tree, encoded names, bytes, file modes whatever
// the umask, and sweep().
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { FakeClock } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import { FsStateStore } from './fs-store.js';

const T0 = Date.UTC(2026, 0, 1);
const DAY_MS = 86_400_000;
let base: string;

before(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'yacron2-state-layout-'));
});
after(async () => {
  await rm(base, { recursive: true, force: true });
});

async function walk(dir: string): Promise<{ dirs: string[]; files: string[] }> {
  const dirs = [dir];
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const entryPath = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = await walk(entryPath);
      dirs.push(...inner.dirs);
      files.push(...inner.files);
    } else {
      files.push(entryPath);
    }
  }
  return { dirs, files };
}

async function exercise(store: FsStateStore): Promise<void> {
  await store.append('runs/Backup', { outcome: 'success' });
  await store.append(`runs/${'x'.repeat(300)}`, { long: true });
  await store.updateDocument('kv/backup', 'cursor', () => ({
    kind: 'write',
    body: { key: 'cursor', value: 1 },
    result: null,
  }));
  await store.acquireLease('slots/backup', 'host-a', 30_000);
  await store.putBlob(new TextEncoder().encode('artifact'));
}

void test('the namespace holds records/, docs/, blobs/, leases/, tmp/, quarantine/ and the meta stamp', async () => {
  const store = new FsStateStore(
    { path: path.join(base, 'layout'), deploymentId: 'Ops.West-2', topology: 'single-node' },
    { clock: new FakeClock(T0), logger: silentLogger() },
  );
  await store.open();
  await exercise(store);
  assert.equal(store.root, path.join(base, 'layout', '%4Fps%2E%57est-2'));
  assert.deepEqual((await readdir(store.root)).sort(), [
    'blobs',
    'docs',
    'leases',
    'quarantine',
    'records',
    'tmp',
  ]);
  const streams = (await readdir(path.join(store.root, 'records'))).sort();
  assert.equal(streams.length, 3);
  assert.ok(streams.includes('meta'));
  assert.ok(streams.includes('runs%2F%42ackup'));
  const long = streams.find((token) => token.includes('%.'))!;
  assert.equal(long.length, 130);
  assert.equal(
    await readFile(path.join(store.root, 'records', long, 'stream-name.txt'), 'utf8'),
    `runs/${'x'.repeat(300)}`,
  );
  const [meta] = await readdir(path.join(store.root, 'records', 'meta'));
  assert.equal(
    await readFile(path.join(store.root, 'records', 'meta', meta!), 'utf8'),
    '{"data":{"storeVersion":"v1"},"schemaVersion":"v1"}',
  );
  const [record] = await readdir(path.join(store.root, 'records', 'runs%2F%42ackup'));
  assert.match(record!, new RegExp(`^\\d{13}\\.\\d{6}-${store.instance}-\\d{12}\\.json$`));
  assert.equal(
    await readFile(path.join(store.root, 'records', 'runs%2F%42ackup', record!), 'utf8'),
    '{"data":{"outcome":"success"},"schemaVersion":"v1"}',
  );
  assert.deepEqual((await readdir(path.join(store.root, 'docs'))).sort(), ['kv%2Fbackup']);
  assert.deepEqual((await readdir(path.join(store.root, 'docs', 'kv%2Fbackup'))).sort(), [
    'cursor.doc',
    'cursor.lock',
  ]);
  assert.deepEqual((await readdir(path.join(store.root, 'leases'))).sort(), [
    'slots%2Fbackup.lease',
    'slots%2Fbackup.lock',
  ]);
  const sha = createHash('sha256').update('artifact').digest('hex');
  assert.deepEqual(await readdir(path.join(store.root, 'blobs')), [sha.slice(0, 2)]);
  assert.deepEqual(await readdir(path.join(store.root, 'blobs', sha.slice(0, 2))), [`${sha}.blob`]);
  assert.deepEqual(await readdir(path.join(store.root, 'tmp')), [], 'no temp is left behind');
  assert.deepEqual((await store.describe()).namespace, 'Ops.West-2');
  assert.ok(
    (await store.listStreams()).includes(`runs/${'x'.repeat(300)}`),
    'long names list back through their sidecar',
  );
  await store.close();
});

void test('an empty deploymentId is the default namespace', async () => {
  const store = new FsStateStore(
    { path: path.join(base, 'empty-id'), deploymentId: '', topology: 'single-node' },
    { clock: new FakeClock(T0), logger: silentLogger() },
  );
  await store.open();
  assert.equal(store.root, path.join(base, 'empty-id', 'default'));
  await store.close();
});

void test('modes: data directories 0700 and files 0600 whatever the umask; state.path and the namespace get the umask default, as the reference makes them', async () => {
  const previous = process.umask(0);
  try {
    for (const umask of [0o000, 0o022, 0o077]) {
      process.umask(umask);
      const top = path.join(base, `modes-${umask.toString(8)}`);
      const store = new FsStateStore(
        { path: path.join(top, 'state'), topology: 'single-node' },
        { clock: new FakeClock(T0), logger: silentLogger() },
      );
      await store.open();
      await exercise(store);
      await store.close();
      const { dirs, files } = await walk(path.join(top, 'state', 'default'));
      assert.ok(files.length >= 8, `files: ${files.length}`);
      const umaskDefault = 0o777 & ~umask;
      for (const dir of [top, path.join(top, 'state'), path.join(top, 'state', 'default')]) {
        assert.equal((await stat(dir)).mode & 0o777, umaskDefault, `${dir} (makedirs default)`);
      }
      for (const dir of dirs.slice(1)) {
        assert.equal(
          (await stat(dir)).mode & 0o777,
          0o700 & ~umask,
          `${dir} under umask ${umask.toString(8)}`,
        );
      }
      for (const file of files) {
        assert.equal(
          (await stat(file)).mode & 0o777,
          0o600 & ~umask,
          `${file} under umask ${umask.toString(8)}`,
        );
      }
    }
  } finally {
    process.umask(previous);
  }
});

void test('sweep() removes old top-level temps and quarantined files and idle orphaned lock files only', async () => {
  const clock = new FakeClock(T0);
  const store = new FsStateStore(
    { path: path.join(base, 'sweep'), topology: 'single-node' },
    { clock, logger: silentLogger() },
  );
  await store.open();
  const old = (T0 - 2 * DAY_MS) / 1000;
  const tmpOld = path.join(store.root, 'tmp', 'w-000000000000-000000000001.tmp');
  const tmpNew = path.join(store.root, 'tmp', 'in-flight.tmp');
  await writeFile(tmpOld, 'x');
  await writeFile(tmpNew, 'x');
  await utimes(tmpOld, old, old);
  await utimes(tmpNew, T0 / 1000, T0 / 1000);
  await mkdir(path.join(store.root, 'tmp', 'someone-elses-dir'));
  await utimes(path.join(store.root, 'tmp', 'someone-elses-dir'), old, old);
  await store.append('s', { ok: true });
  await writeFile(
    path.join(store.root, 'records', 's', '0000000000001.000000-000000000000-000000000001.json'),
    'torn',
  );
  await store.list('s');
  const [quarantinedFile] = await readdir(path.join(store.root, 'quarantine'));
  await utimes(path.join(store.root, 'quarantine', quarantinedFile!), old, old);
  await mkdir(path.join(store.root, 'quarantine', 'other-layout'));
  await writeFile(path.join(store.root, 'quarantine', 'other-layout', 'x.bad'), 'x');
  const write = () => ({ kind: 'write' as const, body: { value: 1 }, result: null });
  await store.updateDocument('kv/x', 'gone', write);
  await store.updateDocument('kv/x', 'gone', () => ({ kind: 'delete', result: null }));
  await store.updateDocument('kv/x', 'kept', write);
  for (const name of ['gone.lock', 'kept.lock']) {
    await utimes(path.join(store.root, 'docs', 'kv%2Fx', name), old, old);
  }
  await store.acquireLease('bare', 'h', 1000);
  await store.deleteLease('bare');
  await writeFile(path.join(store.root, 'leases', 'orphan.lock'), '');
  await utimes(path.join(store.root, 'leases', 'orphan.lock'), old, old);

  const report = await store.sweep({
    tempOlderThanMs: DAY_MS,
    quarantineOlderThanMs: DAY_MS,
    orphanLocksIdleMs: DAY_MS,
  });
  assert.deepEqual(report, { tempFiles: 1, quarantined: 1, orphanLocks: 2 });
  assert.deepEqual((await readdir(path.join(store.root, 'tmp'))).sort(), [
    'in-flight.tmp',
    'someone-elses-dir',
  ]);
  assert.deepEqual((await readdir(path.join(store.root, 'docs', 'kv%2Fx'))).sort(), [
    'kept.doc',
    'kept.lock',
  ]);
  assert.deepEqual(await readdir(path.join(store.root, 'leases')), []);
  assert.deepEqual(await readdir(path.join(store.root, 'quarantine')), ['other-layout']);
  assert.deepEqual(await store.sweep({}), { tempFiles: 0, quarantined: 0, orphanLocks: 0 });
  await store.close();
});

void test('describe({probeWrite}) proves the store takes writes', async () => {
  const store = new FsStateStore(
    { path: path.join(base, 'probe'), topology: 'single-node' },
    { clock: new FakeClock(T0), logger: silentLogger() },
  );
  await store.open();
  const description = await store.describe({ probeWrite: true });
  assert.equal(description.writable, true);
  assert.equal(description.topology, 'single-node');
  assert.deepEqual(await readdir(path.join(store.root, 'tmp')), []);
  await store.close();
});

void test('a reopened store appends to the stream directories already on disk; a long stream whose name sidecar was lost gets it back at its first append', async () => {
  const options = { path: path.join(base, 'reopen'), topology: 'single-node' as const };
  const deps = { clock: new FakeClock(T0), logger: silentLogger() };
  const long = `runs/${'y'.repeat(300)}`;
  const first = new FsStateStore(options, deps);
  await first.open();
  await first.append('runs/Backup', { n: 1 });
  await first.append(long, { n: 1 });
  await first.close();
  const token = (await readdir(path.join(first.root, 'records'))).find((t) => t.includes('%.'))!;
  await rm(path.join(first.root, 'records', token, 'stream-name.txt'));

  const second = new FsStateStore(options, deps);
  await second.open();
  assert.ok(!(await second.listStreams()).includes(long), 'without its sidecar it is unlisted');
  await second.append('runs/Backup', { n: 2 });
  await second.append(long, { n: 2 });
  // Both stores write at the same (fake) millisecond: record order then follows their random
  // instance ids, so compare the sets.
  const data = async (stream: string): Promise<unknown[]> =>
    (await second.list(stream)).map((record) => record.data['n']).sort();
  assert.deepEqual(await data('runs/Backup'), [1, 2]);
  assert.deepEqual(await data(long), [1, 2]);
  assert.equal(
    await readFile(path.join(second.root, 'records', token, 'stream-name.txt'), 'utf8'),
    long,
  );
  assert.ok((await second.listStreams()).includes(long));
  await second.close();
});
