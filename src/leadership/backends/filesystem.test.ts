// The filesystem backend: the client contract on a temporary directory; three elector processes
// (real processes, flock between them) on one directory elect one leader, and when the leader is
// SIGKILLed another takes over once the lease lapses; the lease file is checked byte for byte
// with the independent reader of the reference's format (sorted keys, float expiresAt,
// `<nodeName>#<12 hex>` holders, the percent-encoded name), and a graceful stop releases it
// (expiresAt 0, holder and fence kept). The lock-fidelity probe refuses a lock that does not
// exclude.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { systemClock } from '../../common/index.js';
import { recordingLogger } from '../../logging/testing.js';
import {
  field,
  FixtureProcess,
  keysOf,
  readReferenceJson,
  specEncode,
  toValue,
  within,
} from '../../state/testing.js';
import { checkLeaseClientContract } from '../lease-client.contract.js';
import { FilesystemLeaseClient, type FilesystemLeaseOptions } from './filesystem.js';

const FIXTURE = path.resolve(import.meta.dirname, '../../../test/fixtures/lease-elector.ts');
const running: FixtureProcess[] = [];
after(async () => {
  await Promise.all(running.map((fixture) => fixture.kill()));
});

function options(dir: string, nodeName: string, extra: Partial<FilesystemLeaseOptions> = {}) {
  return {
    nodeName,
    path: dir,
    electionName: 'cluster/leader',
    ttlSeconds: 6,
    deploymentId: null,
    topology: 'shared' as const,
    connectTimeoutMs: 10_000,
    ...extra,
  };
}

void test('FilesystemLeaseClient keeps the lease client contract', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'yacron2-fs-lease-'));
  await checkLeaseClientContract({
    clock: systemClock,
    make: async (identity) => {
      const client = new FilesystemLeaseClient(options(dir, identity), {
        clock: systemClock,
        logger: recordingLogger(),
      });
      await client.start();
      return client;
    },
  });
});

void test('a lock that does not exclude across processes is refused; a local directory warns about its topology', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'yacron2-fs-probe-'));
  const refused = new FilesystemLeaseClient(options(dir, 'a'), {
    clock: systemClock,
    logger: recordingLogger(),
    probe: () =>
      Promise.reject(new Error('flock(2) does not exclude across processes on this filesystem')),
  });
  await assert.rejects(
    refused.start(),
    new RegExp(
      `^Error: cluster.backend filesystem: refusing to elect over ${dir}: flock\\(2\\) does not exclude`,
    ),
  );
  const logger = recordingLogger();
  const local = new FilesystemLeaseClient(options(dir, 'a', { topology: 'auto' }), {
    clock: systemClock,
    logger,
  });
  await local.start();
  assert.match(
    logger.at('warn')[0]?.message ?? '',
    /resolved topology 'single-node': its locks exclude only processes of this host/,
  );
  await local.close();
});

function spawnElector(dir: string, name: string): FixtureProcess {
  const fixture = new FixtureProcess('--import=tsx', [FIXTURE, dir, name, '6']);
  running.push(fixture);
  return fixture;
}

const stateOf = (fixture: FixtureProcess): string | undefined =>
  fixture.lines.filter((line) => line.startsWith('state ')).at(-1);

void test('3 elector processes on one directory: one leader; SIGKILL it and another takes over', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'yacron2-fs-elect-'));
  const names = ['node-a', 'node-b', 'node-c'];
  const fixtures = names.map((name) => spawnElector(dir, name));
  await Promise.all(
    fixtures.map((f) => f.waitForLine((line) => line.startsWith('state '), 30_000)),
  );
  const leaders = fixtures.filter((f) => stateOf(f)?.startsWith('state leader'));
  assert.equal(leaders.length, 1, `exactly one leader: ${fixtures.map(stateOf).join(' | ')}`);
  const leader = leaders[0]!;
  const leaderName = names[fixtures.indexOf(leader)]!;
  for (const f of fixtures)
    assert.equal(stateOf(f)?.split(' ')[2], leaderName, 'everyone names it');

  // The lease file, read with the independent reader of the reference's format.
  const leaseFile = path.join(dir, 'default', 'leases', `${specEncode('cluster/leader')}.lease`);
  assert.equal(path.basename(leaseFile), 'cluster%2Fleader.lease');
  const bytes = readFileSync(leaseFile, 'utf8');
  const node = readReferenceJson(bytes);
  assert.deepEqual(keysOf(node), ['expiresAt', 'fence', 'holder', 'name']);
  const expiresAt = field(node, 'expiresAt');
  assert.equal(expiresAt.kind, 'float');
  assert.ok(
    Math.abs(Number(expiresAt.kind === 'float' ? expiresAt.raw : 0) * 1000 - systemClock.now()) <
      8000,
  );
  assert.equal(toValue(field(node, 'name')), 'cluster/leader');
  assert.match(String(toValue(field(node, 'holder'))), new RegExp(`^${leaderName}#[0-9a-f]{12}$`));
  const fence = Number(toValue(field(node, 'fence')));
  assert.ok(Number.isInteger(fence) && fence >= 1);
  assert.deepEqual([...readFileSync(leaseFile.replace(/\.lease$/, '.lock'))], [0], 'one NUL byte');

  await leader.kill();
  const survivors = fixtures.filter((f) => f !== leader);
  // The lease lapses at most ttl (6 s) after the last renewal; a follower waits 1 s of skew margin
  // more and notices at its next round (every 2 s): the wait's bound is the check.
  const takeoverBoundMs = 6000 + 1000 + 2000 + 1000;
  const next = await within(
    Promise.race(
      survivors.map((f) =>
        f.waitForLine((line) => line.startsWith('state leader'), takeoverBoundMs).then(() => f),
      ),
    ),
    takeoverBoundMs,
    'a survivor takes over within the ttl',
  );
  const other = survivors.find((f) => f !== next)!;
  assert.ok(!stateOf(other)?.startsWith('state leader'), 'still one leader');
  const after = readReferenceJson(readFileSync(leaseFile, 'utf8'));
  assert.equal(Number(toValue(field(after, 'fence'))), fence + 1, 'a new tenure moves the fence');

  // A graceful stop releases in place: expiresAt 0, holder and fence kept.
  const nextName = names[fixtures.indexOf(next)]!;
  next.child.stdin.end();
  await next.waitForLine((line) => line === 'stopped', 15_000);
  const released = readReferenceJson(readFileSync(leaseFile, 'utf8'));
  assert.deepEqual(field(released, 'expiresAt'), { kind: 'float', raw: '0.0' });
  assert.match(String(toValue(field(released, 'holder'))), new RegExp(`^${nextName}#`));
  await other.waitForLine((line) => line.startsWith('state leader'), 15_000);
  other.child.stdin.end();
  await other.waitForLine((line) => line === 'stopped', 15_000);
});
