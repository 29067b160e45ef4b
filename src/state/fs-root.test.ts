// Trusting the store's directories (issue-17 hardening): nothing inside the namespace is
// followed through a symbolic link, directories another user owns are refused, directories
// others may write into are warned about, and with fsyncRecords every directory a record or
// blob write changes is fsynced (blobs/ included).
import assert from 'node:assert/strict';
import { chown, chmod, mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { isYacronError, FakeClock } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import { syncDir } from './fs-files.js';
import { FsStateStore } from './fs-store.js';

const T0 = Date.UTC(2026, 0, 1);
let base: string;

before(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'yacron2-state-root-'));
});
after(async () => {
  await rm(base, { recursive: true, force: true });
});

function storeAt(dir: string, fsyncRecords = false, synced?: string[]): FsStateStore {
  return new FsStateStore(
    { path: dir, topology: 'single-node', fsyncRecords },
    {
      clock: new FakeClock(T0),
      logger: silentLogger(),
      ...(synced && {
        syncDir: async (target: string) => {
          synced.push(target);
          await syncDir(target);
        },
      }),
    },
  );
}

const unsafe = (error: unknown): boolean => isYacronError(error, 'YC_ERR_STATE_UNSAFE');

void test('a namespace data directory that is a symbolic link is refused, never written through', async () => {
  const dir = path.join(base, 'linked-records');
  const elsewhere = path.join(base, 'elsewhere');
  await mkdir(path.join(dir, 'default'), { recursive: true });
  await mkdir(elsewhere);
  await symlink(elsewhere, path.join(dir, 'default', 'records'));
  await assert.rejects(storeAt(dir).open(), unsafe);
  assert.deepEqual(await readdir(elsewhere), [], 'no meta stamp landed through the link');
});

void test('a namespace directory that is a symbolic link is refused', async () => {
  const dir = path.join(base, 'linked-namespace');
  const elsewhere = path.join(base, 'elsewhere-ns');
  await mkdir(dir);
  await mkdir(elsewhere);
  await symlink(elsewhere, path.join(dir, 'default'));
  await assert.rejects(storeAt(dir).open(), unsafe);
  assert.deepEqual(await readdir(elsewhere), []);
});

void test('state.path itself may be a symbolic link (an operator choice)', async () => {
  const real = path.join(base, 'real-store');
  await mkdir(real);
  const link = path.join(base, 'linked-store');
  await symlink(real, link);
  const store = storeAt(link);
  await store.open();
  await store.append('runs/a', { n: 1 });
  assert.ok((await readdir(path.join(real, 'default', 'records'))).includes('runs%2Fa'));
  await store.close();
});

void test('a stream directory planted as a symbolic link is refused on write', async () => {
  const dir = path.join(base, 'linked-stream');
  const store = storeAt(dir);
  await store.open();
  const elsewhere = path.join(base, 'elsewhere-stream');
  await mkdir(elsewhere);
  await symlink(elsewhere, path.join(store.root, 'records', 'runs%2Fa'));
  await assert.rejects(store.append('runs/a', { n: 1 }), unsafe);
  assert.deepEqual(await readdir(elsewhere), []);
  await store.close();
});

void test('a namespace directory owned by another user is refused (as root)', async (t) => {
  if (process.geteuid?.() !== 0) {
    t.skip('needs root to hand a directory to another user');
    return;
  }
  const dir = path.join(base, 'foreign');
  await mkdir(path.join(dir, 'default', 'records'), { recursive: true });
  await chown(path.join(dir, 'default', 'records'), 12345, 12345);
  await assert.rejects(
    storeAt(dir).open(),
    (error) => unsafe(error) && /uid 12345/.test(String(error)),
  );
});

void test('a state.path others may write into is warned about at open', async () => {
  const dir = path.join(base, 'world-writable');
  await mkdir(dir);
  await chmod(dir, 0o777);
  const store = storeAt(dir);
  await store.open();
  const { warnings } = await store.describe();
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /is writable by every user/);
  await chmod(dir, 0o1777); // sticky, like /tmp: entries can be renamed only by their owner
  const again = storeAt(dir);
  await store.close();
  await again.open();
  assert.deepEqual((await again.describe()).warnings, []);
  await again.close();
});

void test('with fsyncRecords, a record and a blob write fsync every directory they change (blobs/ too)', async () => {
  const synced: string[] = [];
  const store = storeAt(path.join(base, 'fsync'), true, synced);
  await store.open();
  synced.length = 0;
  await store.append('runs/a', { n: 1 });
  const records = path.join(store.root, 'records');
  assert.deepEqual(synced, [records, path.join(records, 'runs%2Fa')]);
  synced.length = 0;
  const sha = await store.putBlob(new TextEncoder().encode('blob'));
  const blobs = path.join(store.root, 'blobs');
  assert.deepEqual(synced, [blobs, path.join(blobs, sha.slice(0, 2))]);
  await store.close();
});
