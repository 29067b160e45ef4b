// user/group switching with real processes; needs root (skipped otherwise).
import { test } from 'node:test';
import { currentSpawner, describeForEachSpawnPath } from './test-spawn-paths.js';
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { systemClock } from '../common/index.js';
import { createRunner } from './create-runner.js';
import { recordingLogger } from '../logging/testing.js';
import { makeJob, TextSink } from './test-job-fixture.js';
import type { RunOutcome } from './types.js';

const isRoot = process.getuid?.() === 0;
const skip = isRoot ? false : 'needs root';

interface Account {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

function readAccounts(): Account[] {
  return readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .filter((fields) => fields.length >= 4)
    .map(([name, , uid, gid]) => ({ name: name ?? '', uid: Number(uid), gid: Number(gid) }));
}

/** A user listed as a member of some group other than its primary one, with that group's gid. */
function userWithSupplementaryGroup(): { user: Account; groupId: number } | null {
  const accounts = readAccounts();
  for (const line of readFileSync('/etc/group', 'utf8').split('\n')) {
    const [, , gid, members] = line.split(':');
    for (const member of (members ?? '').split(',').filter((m) => m !== '')) {
      const user = accounts.find((a) => a.name === member && a.uid !== 0);
      if (user && Number(gid) !== user.gid) return { user, groupId: Number(gid) };
    }
  }
  return null;
}

function runId(
  identity: { uid: number | null; gid: number | null; userName: string | null },
  setprivPath?: string | null,
): Promise<RunOutcome> {
  const runner = createRunner({
    spawner: currentSpawner(),
    clock: systemClock,
    logger: recordingLogger(),
    stdout: new TextSink(),
    stderr: new TextSink(),
    baseEnv: process.env,
    ...(setprivPath === undefined ? {} : { setprivPath }),
  });
  return runner.start({
    job: makeJob({
      command: { kind: 'shell', script: 'id -u; id -g; id -G' },
      captureStdout: true,
      ...identity,
    }),
  }).done;
}

describeForEachSpawnPath('identity switches', () => {
  test(
    'a job with user nobody runs as uid/gid 65534 with only its own groups',
    { skip },
    async () => {
      const outcome = await runId({ uid: 65534, gid: 65534, userName: 'nobody' });
      assert.equal(outcome.kind, 'succeeded');
      assert.equal(outcome.stdout?.text, '65534\n65534\n65534\n');
    },
  );

  test('a numeric uid unknown to passwd runs with no supplementary groups', { skip }, async () => {
    const outcome = await runId({ uid: 54321, gid: 54321, userName: null });
    assert.equal(outcome.stdout?.text, '54321\n54321\n54321\n');
  });

  test(
    'a group-only switch keeps the daemon uid and drops supplementary groups',
    { skip },
    async () => {
      const outcome = await runId({ uid: null, gid: 65534, userName: null });
      assert.equal(outcome.stdout?.text, '0\n65534\n65534\n');
    },
  );

  test('a uid or gid outside 0..4294967294 fails the launch and nothing runs, with setpriv or without', async () => {
    // Cast into a 32-bit uid_t, 2^32 is 0 (root) and 2^32 - 1 is "leave unchanged".
    const cases = [
      [{ uid: 4_294_967_296, gid: 65534, userName: null }, 'uid 4294967296'],
      [{ uid: 4_294_967_295, gid: 65534, userName: null }, 'uid 4294967295'],
      [{ uid: 65534, gid: 4_294_967_296, userName: null }, 'gid 4294967296'],
      [{ uid: 1.5, gid: null, userName: null }, 'uid 1.5'],
    ] as const;
    for (const setpriv of [undefined, null]) {
      for (const [identity, id] of cases) {
        const outcome = await runId(identity, setpriv);
        assert.equal(outcome.kind, 'spawn-failed', id);
        assert.equal(outcome.spawnError, `${id} is outside 0..4294967294: refused`);
        assert.equal(outcome.stdout?.text, '', `${id}: nothing ran`);
      }
    }
  });

  const member = userWithSupplementaryGroup();

  test(
    'a user switch keeps the user`s supplementary groups (initgroups via setpriv)',
    { skip: skip || (member === null ? 'no user with a supplementary group here' : false) },
    async () => {
      const { user, groupId } = member!;
      const outcome = await runId({ uid: user.uid, gid: user.gid, userName: user.name });
      const [uid, gid, groups] = (outcome.stdout?.text ?? '').split('\n');
      assert.equal(uid, String(user.uid));
      assert.equal(gid, String(user.gid));
      assert.ok(groups?.split(' ').includes(String(groupId)), `groups ${groups} has ${groupId}`);
    },
  );

  test(
    'without setpriv the switch falls back to Node uid/gid and drops supplementary groups',
    { skip: skip || (member === null ? 'no user with a supplementary group here' : false) },
    async () => {
      const { user } = member!;
      const outcome = await runId({ uid: user.uid, gid: user.gid, userName: user.name }, null);
      assert.equal(outcome.stdout?.text, `${user.uid}\n${user.gid}\n${user.gid}\n`);
    },
  );
});
