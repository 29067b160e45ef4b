import assert from 'node:assert/strict';
import { mkdtemp, readdir, readlink, rm, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { systemClock } from '../common/clock.js';
import { isYacronError } from '../common/errors.js';
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
  const holder = new FileLocker({ workerOnly: false, clock: systemClock });
  const waiter = new FileLocker({ workerOnly: false, clock: systemClock });
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
  const first = new FileLocker({ workerOnly: true, clock: systemClock });
  const second = new FileLocker({ workerOnly: true, clock: systemClock });
  const third = new FileLocker({ workerOnly: true, clock: systemClock });
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
