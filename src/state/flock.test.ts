import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, readdir, readlink, rm, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { systemClock, isYacronError } from '../common/index.js';
import { FileLocker } from './flock.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'yacron2-flock-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

void test('a contended lock waits in the helper thread, bounded by its timeout', async () => {
  const lockPath = path.join(dir, 'timeout.lock');
  const holder = new FileLocker({ clock: systemClock });
  const waiter = new FileLocker({ clock: systemClock });
  const held = await holder.acquire(lockPath, 1000);
  assert.equal((await stat(lockPath)).mode & 0o777, 0o600);
  await assert.rejects(waiter.acquire(lockPath, 50), (error) =>
    isYacronError(error, 'YC_ERR_STATE_TIMEOUT'),
  );
  const pending = waiter.acquire(lockPath, 5000);
  await held.release();
  const second = await pending;
  assert.ok(second.waitedMs >= 0);
  await second.release();
  await holder.close();
  await waiter.close();
});

/** Inodes of this process's open files at `filePath` (a deleted one reads "<path> (deleted)"). */
async function openInodes(filePath: string): Promise<number[]> {
  const inodes: number[] = [];
  for (const fd of await readdir('/proc/self/fd')) {
    try {
      const target = await readlink(`/proc/self/fd/${fd}`);
      if (target === filePath || target === `${filePath} (deleted)`) {
        inodes.push((await stat(`/proc/self/fd/${fd}`)).ino);
      }
    } catch {
      // the fd closed while we looked
    }
  }
  return inodes;
}

/** Poll /proc until `check` holds (bounded): waiting on an observable state, not a guess. */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = systemClock.monotonic() + 5000;
  while (!(await check())) {
    if (systemClock.monotonic() > deadline) throw new Error(`timed out waiting until ${what}`);
    await systemClock.sleep(2);
  }
}

void test('a waiter whose lock file was replaced while it waited re-opens the new one', async () => {
  const lockPath = path.join(dir, 'swapped.lock');
  const first = new FileLocker({ clock: systemClock });
  const second = new FileLocker({ clock: systemClock });
  const third = new FileLocker({ clock: systemClock });
  const held = await first.acquire(lockPath, 1000);
  const oldInode = (await stat(lockPath)).ino;
  const events: string[] = [];
  const waiting = second.acquire(lockPath, 10_000).then((lock) => {
    events.push('second acquired');
    return lock;
  });
  await until(
    async () => (await openInodes(lockPath)).length === 2,
    'the waiter opened the old file',
  );
  await unlink(lockPath);
  const onNewInode = await third.acquire(lockPath, 1000); // creates and locks a new inode
  const newInode = (await stat(lockPath)).ino;
  assert.notEqual(newInode, oldInode);
  await held.release(); // the waiter now gets the OLD inode, must notice, and re-open
  await until(
    async () => (await openInodes(lockPath)).filter((ino) => ino === newInode).length === 2,
    'the waiter re-opened the new file',
  );
  assert.equal(events.length, 0, 'the new inode is held by the third locker: no split lock');
  events.push('third released');
  await onNewInode.release();
  await (await waiting).release();
  assert.deepEqual(events, ['third released', 'second acquired']);
  for (const locker of [first, second, third]) await locker.close();
});

void test('the lock is flock(2): it excludes and is excluded by flock(1), as the reference locks', async () => {
  const lockPath = path.join(dir, 'interop.lock');
  // util-linux flock(1) takes BSD flock(2), like Python's fcntl.flock. Record locks (fcntl,
  // OFD, lockf) would not exclude it on a local filesystem.
  const holder = spawn('flock', ['--exclusive', lockPath, 'sh', '-c', 'echo held; read line'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
  const locker = new FileLocker({ clock: systemClock });
  await assert.rejects(locker.acquire(lockPath, 100), (error) =>
    isYacronError(error, 'YC_ERR_STATE_TIMEOUT'),
  );
  const waiting = locker.acquire(lockPath, 10_000);
  holder.stdin.end('\n');
  const held = await waiting;
  assert.deepEqual(await readFile(lockPath), Buffer.from([0]), 'one NUL byte, like the reference');
  const probe = spawnSync('flock', ['--exclusive', '--nonblock', lockPath, 'true']);
  assert.equal(probe.status, 1, 'flock(1) cannot take it while we hold it');
  await held.release();
  assert.equal(spawnSync('flock', ['--exclusive', '--nonblock', lockPath, 'true']).status, 0);
  await locker.close();
});
