// backup / restore / migrate at the file level: byte-identical round trips, 0600 files, refusal
// of non-empty stores, fence-max merging, and hostile archives refused before anything is written.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { list } from 'tar';
import { FakeClock } from '../../common/index.js';
import { backupStore } from './backup.js';
import { AdminRefusal, type AdminContext } from './context.js';
import { listDataFiles, namespaceDir } from './layout.js';
import { migrateStore } from './migrate.js';
import { restoreStore } from './restore.js';
import { TarGzWriter, type TarMember } from './tar-writer.js';

const root = mkdtempSync(path.join(tmpdir(), 'yacron2-admin-test-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));
let counter = 0;

function freshDir(): string {
  const dir = path.join(root, `case-${++counter}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

function context(statePath: string, deploymentId: string | null = null) {
  const lines: string[] = [];
  const ctx: AdminContext = {
    state: { path: statePath, deploymentId, gcGraceMs: 7 * 86_400_000, topology: 'auto' },
    nsDir: namespaceDir(statePath, deploymentId),
    cwd: root,
    clock: new FakeClock(),
    print: (line) => lines.push(line),
    openStore: () => Promise.reject(new Error('no store in file-level tests')),
  };
  return { ctx, lines };
}

function lease(fence: number): string {
  return JSON.stringify({
    schemaVersion: 'v1',
    data: { name: 'slots/job', holder: 'h', fence, expiresAtMs: 1, updatedAtMs: 1 },
  });
}

const SAMPLE: Record<string, string> = {
  'records/runs%2Fjob/0001.json': '{"schemaVersion":"v1","data":{"outcome":"success"}}',
  'records/meta/0001.json': '{"schemaVersion":"v1","data":{"schemes":["v1"]}}',
  'docs/kv%2Fjob%2Fk.json': '{"schemaVersion":"v1","data":{"value":42}}',
  'blobs/ab/abcdef': 'payload bytes',
  'leases/slots%2Fjob': lease(5),
  'leases/slots%2Fjob.lock': '',
};

/** A store with SAMPLE's data files plus tmp/ and quarantine/ litter. */
function seedStore(statePath: string, files = SAMPLE, deploymentId: string | null = null): string {
  const nsDir = namespaceDir(statePath, deploymentId);
  const old = new Date(Date.UTC(2026, 0, 1));
  const all = { ...files, 'tmp/partial.tmp': 'torn', 'quarantine/bad.json': '{' };
  for (const [rel, content] of Object.entries(all)) {
    const file = path.join(nsDir, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content, { mode: 0o600 });
    utimesSync(file, old, old);
  }
  return nsDir;
}

function readTree(nsDir: string, rels: readonly string[]): Record<string, string> {
  return Object.fromEntries(rels.map((rel) => [rel, readFileSync(path.join(nsDir, rel), 'utf8')]));
}

async function archiveMembers(file: string): Promise<string[]> {
  const members: string[] = [];
  await list({ file, onReadEntry: (entry) => void members.push(entry.path) });
  return members.sort();
}

async function writeArchive(file: string, members: readonly TarMember[]): Promise<void> {
  const writer = new TarGzWriter(file);
  for (const member of members) await writer.add(member);
  await writer.finish();
}

void test('backup holds exactly the data directories, owner-only', async () => {
  const statePath = freshDir();
  seedStore(statePath);
  const { ctx, lines } = context(statePath);
  const archive = path.join(freshDir(), 'store.tar.gz');
  await backupStore(ctx, archive);
  assert.equal(statSync(archive).mode & 0o777, 0o600);
  assert.deepEqual(await archiveMembers(archive), Object.keys(SAMPLE).sort());
  assert.match(
    lines[0] ?? '',
    /^state: backed up 6 files \(records 2, docs 1, blobs 1, leases 2\) from .* to .*store\.tar\.gz$/,
  );
});

void test('backup of a store that does not exist is refused', async () => {
  const { ctx } = context(path.join(freshDir(), 'missing'));
  await assert.rejects(
    backupStore(ctx, path.join(freshDir(), 'x.tar.gz')),
    (error: unknown) =>
      error instanceof AdminRefusal &&
      /^state: nothing to back up: .*missing\/default does not exist$/.test(error.message),
  );
});

void test('backup → restore reproduces every data file byte for byte, each 0600', async () => {
  const source = seedStore(freshDir());
  const archive = path.join(freshDir(), 'b.tar.gz');
  await backupStore(context(path.dirname(source)).ctx, archive);
  const targetPath = freshDir();
  const { ctx, lines } = context(targetPath);
  await restoreStore(ctx, { archive, force: false });
  const expected = Object.keys(SAMPLE).filter((rel) => !rel.endsWith('.lock'));
  assert.deepEqual(await listDataFiles(ctx.nsDir), expected.sort());
  assert.deepEqual(readTree(ctx.nsDir, expected), readTree(source, expected));
  for (const rel of expected) {
    assert.equal(statSync(path.join(ctx.nsDir, rel)).mode & 0o777, 0o600, rel);
  }
  assert.equal(statSync(ctx.nsDir).mode & 0o777, 0o700);
  const seconds = (dir: string): number =>
    Math.floor(statSync(path.join(dir, 'blobs/ab/abcdef')).mtimeMs / 1000);
  assert.equal(seconds(ctx.nsDir), seconds(source), 'modification times survive (blob ages)');
  assert.match(lines[0] ?? '', /^state: restored 5 of 6 files into .*; skipped 1 lock file\(s\)$/);
  assert.deepEqual(readdirSync(path.join(ctx.nsDir, 'tmp')), [], 'no staging left behind');
});

void test('restore refuses a store that already has data, unless --force', async () => {
  const archive = path.join(freshDir(), 'b.tar.gz');
  const source = seedStore(freshDir());
  await backupStore(context(path.dirname(source)).ctx, archive);
  const targetPath = freshDir();
  seedStore(targetPath, { 'records/runs%2Fother/0001.json': '{}' });
  const { ctx } = context(targetPath);
  await assert.rejects(
    restoreStore(ctx, { archive, force: false }),
    /refusing to restore into .*: the store already has data \(use --force to merge\)/,
  );
  assert.deepEqual(await listDataFiles(ctx.nsDir), ['records/runs%2Fother/0001.json']);
  await restoreStore(ctx, { archive, force: true });
  assert.equal((await listDataFiles(ctx.nsDir)).length, 6, 'merged: both stores, no lock');
});

void test('a forced restore merges leases by fence-max', async () => {
  const archive = path.join(freshDir(), 'b.tar.gz');
  await writeArchive(archive, [
    { path: 'leases/older', bytes: Buffer.from(lease(3)) },
    { path: 'leases/newer', bytes: Buffer.from(lease(9)) },
    { path: 'leases/equal', bytes: Buffer.from(lease(4)) },
    { path: 'leases/fresh', bytes: Buffer.from(lease(1)) },
  ]);
  const targetPath = freshDir();
  const nsDir = seedStore(targetPath, {
    'leases/older': lease(7),
    'leases/newer': lease(2),
    'leases/equal': lease(4),
  });
  const { ctx, lines } = context(targetPath);
  await restoreStore(ctx, { archive, force: true });
  const fence = (rel: string): number =>
    (JSON.parse(readFileSync(path.join(nsDir, rel), 'utf8')) as { data: { fence: number } }).data
      .fence;
  assert.equal(fence('leases/older'), 7, 'a fence never moves backwards');
  assert.equal(fence('leases/newer'), 9);
  assert.equal(fence('leases/equal'), 4);
  assert.equal(fence('leases/fresh'), 1);
  assert.match(lines[0] ?? '', /kept 1 existing lease\(s\) with a newer fence/);
});

const HOSTILE: readonly [string, TarMember, RegExp][] = [
  ['a .. path', { path: 'records/../../evil', bytes: Buffer.from('x') }, /contains '\.\.'/],
  ['an absolute path', { path: '/tmp/evil', bytes: Buffer.from('x') }, /absolute/],
  [
    'a symlink',
    { path: 'records/link', type: 'SymbolicLink', linkpath: '/etc/passwd' },
    /a symbolic link/,
  ],
  ['a hard link', { path: 'records/hard', type: 'Link', linkpath: 'records/x' }, /a hard link/],
  ['a character device', { path: 'records/dev', type: 'CharacterDevice' }, /a device/],
  ['a block device', { path: 'records/blk', type: 'BlockDevice' }, /a device/],
  ['a FIFO', { path: 'records/fifo', type: 'FIFO' }, /a FIFO/],
];

for (const [what, member, reason] of HOSTILE) {
  void test(`an archive with ${what} is refused and nothing is written`, async () => {
    const archive = path.join(freshDir(), 'hostile.tar.gz');
    await writeArchive(archive, [
      { path: 'records/runs%2Fjob/0001.json', bytes: Buffer.from('{}') },
      member,
    ]);
    const targetPath = freshDir();
    const { ctx } = context(targetPath);
    await assert.rejects(restoreStore(ctx, { archive, force: true }), (error: Error) => {
      assert.match(error.message, /^refusing the archive .*: member '/);
      assert.match(error.message, reason);
      return true;
    });
    assert.deepEqual(readdirSync(targetPath), [], 'not even the namespace directory');
  });
}

void test('members outside the data directories are ignored, not extracted', async () => {
  const archive = path.join(freshDir(), 'b.tar.gz');
  await writeArchive(archive, [
    { path: 'records/runs%2Fjob/0001.json', bytes: Buffer.from('{}') },
    { path: 'tmp/x', bytes: Buffer.from('t') },
    { path: 'README', bytes: Buffer.from('r') },
    { path: 'records', type: 'Directory' },
  ]);
  const { ctx, lines } = context(freshDir());
  await restoreStore(ctx, { archive, force: false });
  assert.deepEqual(await listDataFiles(ctx.nsDir), ['records/runs%2Fjob/0001.json']);
  assert.deepEqual(readdirSync(path.join(ctx.nsDir, 'tmp')), []);
  assert.match(lines[0] ?? '', /ignored 2 member\(s\) outside the data directories/);
});

void test('long member paths (pax headers) round-trip', async () => {
  const long = `records/${'x'.repeat(150)}/${'y'.repeat(120)}.json`;
  const statePath = freshDir();
  seedStore(statePath, { [long]: 'long' });
  const archive = path.join(freshDir(), 'b.tar.gz');
  await backupStore(context(statePath).ctx, archive);
  const { ctx } = context(freshDir());
  await restoreStore(ctx, { archive, force: false });
  assert.equal(readFileSync(path.join(ctx.nsDir, long), 'utf8'), 'long');
});

void test('migrate copies every data file to the new root (not tmp/ or quarantine/)', async () => {
  const statePath = freshDir();
  const source = seedStore(statePath);
  const destRoot = freshDir();
  const { ctx, lines } = context(statePath);
  await migrateStore(ctx, { dest: destRoot, force: false });
  const dest = namespaceDir(destRoot, null);
  const expected = Object.keys(SAMPLE)
    .filter((rel) => !rel.endsWith('.lock'))
    .sort();
  assert.deepEqual(await listDataFiles(dest), expected);
  assert.deepEqual(readTree(dest, expected), readTree(source, expected));
  assert.match(lines[0] ?? '', /^state: migrated 5 files from .* to .*; skipped 1 lock file\(s\)$/);
  assert.equal(lines[1], `state: now point state.path at ${destRoot}`);
});

void test('migrate into another deploymentId namespace', async () => {
  const statePath = freshDir();
  seedStore(statePath);
  const { ctx, lines } = context(statePath);
  await migrateStore(ctx, { dest: statePath, destDeploymentId: 'other', force: false });
  assert.equal((await listDataFiles(namespaceDir(statePath, 'other'))).length, 5);
  assert.match(lines[1] ?? '', /and state\.deploymentId at other$/);
});

void test('migrate refuses a destination equal to, inside or containing the source', async () => {
  const statePath = freshDir();
  const source = seedStore(statePath);
  const { ctx } = context(statePath);
  await assert.rejects(
    migrateStore(ctx, { dest: statePath, force: true }),
    /the destination must not be the source, inside it, or contain it/,
  );
  await assert.rejects(
    migrateStore(ctx, { dest: path.join(source, 'records', 'nested'), force: true }),
    /the destination must not be the source/,
  );
});

void test('migrate refuses a destination with data unless --force', async () => {
  const statePath = freshDir();
  seedStore(statePath);
  const destRoot = freshDir();
  seedStore(destRoot, { 'leases/slots%2Fjob': lease(8) });
  const { ctx } = context(statePath);
  await assert.rejects(
    migrateStore(ctx, { dest: destRoot, force: false }),
    /the destination already has data \(use --force to merge\)/,
  );
  await migrateStore(ctx, { dest: destRoot, force: true });
  const kept = readFileSync(path.join(namespaceDir(destRoot, null), 'leases/slots%2Fjob'), 'utf8');
  assert.equal(kept, lease(8), 'the destination lease had the higher fence');
});

void test('migrate of a missing store fails', async () => {
  const { ctx } = context(path.join(freshDir(), 'nothing'));
  await assert.rejects(
    migrateStore(ctx, { dest: freshDir(), force: false }),
    /the store at .* does not exist/,
  );
});
