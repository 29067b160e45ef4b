import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findMount, isSharedFsType, parseProcMounts, resolveTopology } from './topology.js';

const MOUNTS = [
  'overlay / overlay rw,relatime 0 0',
  'proc /proc proc rw 0 0',
  'tmpfs /tmp tmpfs rw 0 0',
  'fs-1.efs.eu-west-1.amazonaws.com:/ /mnt/efs nfs4 rw,vers=4.1 0 0',
  '//nas/share /mnt/smb\\040share cifs rw 0 0',
  'sshfs#me@host: /mnt/remote fuse.sshfs rw 0 0',
  '/dev/sdb1 /mnt/efs/local ext4 rw 0 0',
  '/dev/sdc1 /mnt/ntfs fuseblk rw 0 0',
].join('\n');

void test('network filesystem types are shared; local ones (fuseblk included) are not', () => {
  for (const type of ['nfs', 'nfs4', 'efs', 'cifs', 'smb3', 'fuse.sshfs', 'fuse.s3fs']) {
    assert.ok(isSharedFsType(type), type);
  }
  for (const type of ['ext4', 'xfs', 'btrfs', 'tmpfs', 'overlay', 'fuseblk', 'zfs']) {
    assert.ok(!isSharedFsType(type), type);
  }
});

void test('findMount() picks the longest mount point on a path boundary', () => {
  const entries = parseProcMounts(MOUNTS);
  assert.equal(findMount(entries, '/mnt/efs/yacron2')?.fsType, 'nfs4');
  assert.equal(findMount(entries, '/mnt/efs')?.fsType, 'nfs4');
  assert.equal(findMount(entries, '/mnt/efs/local/x')?.fsType, 'ext4');
  assert.equal(findMount(entries, '/mnt/efsother')?.fsType, 'overlay');
  assert.equal(findMount(entries, '/mnt/smb share/state')?.fsType, 'cifs');
  assert.equal(findMount(entries, '/var/lib/yacron2')?.fsType, 'overlay');
});

void test('resolveTopology(auto) probes the mount; explicit settings skip the probe', async () => {
  const readMounts = (): Promise<string> => Promise.resolve(MOUNTS);
  const realPath = (storePath: string): Promise<string> => Promise.resolve(storePath);
  const deps = { readMounts, realPath };
  assert.deepEqual(await resolveTopology('auto', '/mnt/efs/not-yet-created/x', deps), {
    topology: 'shared',
    setting: 'auto',
    fsType: 'nfs4',
  });
  assert.equal((await resolveTopology('auto', '/mnt/remote/state', deps)).topology, 'shared');
  assert.equal((await resolveTopology('auto', '/tmp/state', deps)).topology, 'single-node');
  const noProc = (): Promise<string> => Promise.reject(new Error('ENOENT'));
  assert.equal(
    (await resolveTopology('auto', '/mnt/efs', { readMounts: noProc })).topology,
    'single-node',
  );
  assert.deepEqual(await resolveTopology('shared', '/tmp', { readMounts: noProc }), {
    topology: 'shared',
    setting: 'shared',
  });
});
