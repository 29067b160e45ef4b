// The on-disk model: layout, encoded names, file modes whatever the umask, and sweep().
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { FakeClock } from '../common/fake-clock.js';
import { silentLogger } from '../common/logger.js';
import { FsStateStore } from './fs-store.js';
import { encodeName } from './name-encoding.js';

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
  await store.putDoc('kv/backup/cursor', 1);
  await store.acquireLease('slots/backup', 'host-a', 30_000);
  await store.putBlob(new TextEncoder().encode('artifact'));
}

void test('the namespace holds records/, docs/, blobs/, leases/, tmp/, quarantine/ and the meta stamp', async () => {
  const store = new FsStateStore(
    { path: path.join(base, 'layout'), deploymentId: 'My App', topology: 'single-node' },
    { clock: new FakeClock(T0), logger: silentLogger() },
  );
  await store.open();
  await exercise(store);
  assert.equal(store.root, path.join(base, 'layout', '%4Dy%20%41pp'));
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
  assert.ok(streams.includes(encodeName('runs/Backup')));
  assert.ok(streams.includes('runs%2F%42ackup'));
  const [record] = await readdir(path.join(store.root, 'records', 'runs%2F%42ackup'));
  assert.match(record!, /^\d{15}-\d{10}-[0-9a-f]{12}\.json$/);
  const text = await readFile(path.join(store.root, 'records', 'runs%2F%42ackup', record!), 'utf8');
  assert.deepEqual(JSON.parse(text), { schemaVersion: 'v1', data: { outcome: 'success' } });
  assert.deepEqual((await readdir(path.join(store.root, 'leases'))).sort(), [
    'slots%2Fbackup.json',
    'slots%2Fbackup.lock',
  ]);
  assert.deepEqual(await readdir(path.join(store.root, 'tmp')), [], 'no temp is left behind');
  assert.deepEqual((await store.describe()).namespace, 'My App');
  assert.ok(
    (await store.listStreams()).includes(`runs/${'x'.repeat(300)}`),
    'long names list back',
  );
  await store.close();
});

void test('directories are 0700 and files 0600 whatever the umask (it can only narrow them)', async () => {
  const previous = process.umask(0);
  try {
    for (const umask of [0o000, 0o022, 0o077]) {
      process.umask(umask);
      const store = new FsStateStore(
        { path: path.join(base, `modes-${umask.toString(8)}`), topology: 'single-node' },
        { clock: new FakeClock(T0), logger: silentLogger() },
      );
      await store.open();
      await exercise(store);
      await store.close();
      const { dirs, files } = await walk(path.join(base, `modes-${umask.toString(8)}`));
      assert.ok(files.length >= 8, `files: ${files.length}`);
      for (const dir of dirs) {
        assert.equal(
          (await stat(dir)).mode & 0o777,
          0o700,
          `${dir} under umask ${umask.toString(8)}`,
        );
      }
      for (const file of files) {
        assert.equal(
          (await stat(file)).mode & 0o777,
          0o600,
          `${file} under umask ${umask.toString(8)}`,
        );
      }
    }
  } finally {
    process.umask(previous);
  }
});

void test('sweep() removes old temps, old quarantined files and idle orphaned lock files only', async () => {
  const clock = new FakeClock(T0);
  const store = new FsStateStore(
    { path: path.join(base, 'sweep'), topology: 'single-node' },
    { clock, logger: silentLogger() },
  );
  await store.open();
  const old = (T0 - 2 * DAY_MS) / 1000;
  const tmpOld = path.join(store.root, 'tmp', 'crashed.tmp');
  const tmpNew = path.join(store.root, 'tmp', 'in-flight.tmp');
  await writeFile(tmpOld, 'x');
  await writeFile(tmpNew, 'x');
  await utimes(tmpOld, old, old);
  await utimes(tmpNew, T0 / 1000, T0 / 1000);
  const streamDir = path.join(store.root, 'records', 's');
  await store.append('s', { ok: true });
  await writeFile(path.join(streamDir, '000000000000001-0000000001-000000000000.json'), 'torn');
  await store.list('s');
  const [quarantinedFile] = (await walk(path.join(store.root, 'quarantine'))).files;
  await utimes(quarantinedFile!, old, old);
  await store.putDoc('gone', 1);
  await store.deleteDoc('gone');
  await store.putDoc('kept', 1);
  for (const name of ['gone.lock', 'kept.lock']) {
    await utimes(path.join(store.root, 'docs', name), old, old);
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
  assert.deepEqual(await readdir(path.join(store.root, 'tmp')), ['in-flight.tmp']);
  assert.deepEqual((await readdir(path.join(store.root, 'docs'))).sort(), [
    'kept.json',
    'kept.lock',
  ]);
  assert.deepEqual(await readdir(path.join(store.root, 'leases')), []);
  assert.equal((await store.describe()).counts.quarantined, 0);
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
  assert.deepEqual(await readdir(path.join(store.root, 'docs')), []);
  await store.close();
});
