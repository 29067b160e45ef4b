import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { isYacronError, FakeClock } from '../common/index.js';
import {
  BOOT_ID_FILE_ENV,
  BOOT_TIME_TOLERANCE_MS,
  LINUX_BOOT_ID_PATH,
  PROC_UPTIME_PATH,
  readBootIdentity,
  sameBoot,
  type BootIdentityDeps,
} from './boot-id.js';

const NOW_MS = Date.UTC(2026, 2, 1, 12);
const BOOT_ID = '0f6e4c2a-9b1d-4e7f-8a3c-5d2b1e0f9a87';

/** readFile over an in-memory file table; a missing file fails like the real one (ENOENT). */
function fakeFiles(files: Record<string, string>): {
  readonly readFile: (file: string) => Promise<string>;
  readonly reads: string[];
} {
  const reads: string[] = [];
  return {
    reads,
    readFile: (file) => {
      reads.push(file);
      const content = files[file];
      if (content !== undefined) return Promise.resolve(content);
      const error = Object.assign(new Error(`ENOENT: no such file or directory, open '${file}'`), {
        code: 'ENOENT',
      });
      return Promise.reject(error);
    },
  };
}

function deps(files: Record<string, string>, extra: Partial<BootIdentityDeps> = {}) {
  return { ...fakeFiles(files), clock: new FakeClock(NOW_MS), ...extra };
}

void test('readBootIdentity() takes the Linux boot id, trimmed, and the boot time from uptime (as a marker records both)', async () => {
  const fake = deps({ [LINUX_BOOT_ID_PATH]: `${BOOT_ID}\n`, [PROC_UPTIME_PATH]: '5.00 1.00\n' });
  const identity = await readBootIdentity(fake);
  assert.deepEqual(identity, { bootId: BOOT_ID, bootTimeMs: NOW_MS - 5_000 });
  assert.deepEqual(fake.reads, [LINUX_BOOT_ID_PATH, PROC_UPTIME_PATH]);
});

void test('readBootIdentity() keeps the boot id alone when uptime cannot be read', async () => {
  const identity = await readBootIdentity(deps({ [LINUX_BOOT_ID_PATH]: BOOT_ID }));
  assert.deepEqual(identity, { bootId: BOOT_ID, bootTimeMs: null });
});

void test('readBootIdentity() derives the boot time from /proc/uptime when there is no boot id', async () => {
  const identity = await readBootIdentity(deps({ [PROC_UPTIME_PATH]: '12345.67 54321.00\n' }));
  assert.deepEqual(identity, { bootId: null, bootTimeMs: NOW_MS - 12_345_670 });
});

void test('readBootIdentity() treats an empty boot id file as absent', async () => {
  const identity = await readBootIdentity(
    deps({ [LINUX_BOOT_ID_PATH]: ' \n', [PROC_UPTIME_PATH]: '60 1' }),
  );
  assert.deepEqual(identity, { bootId: null, bootTimeMs: NOW_MS - 60_000 });
});

void test('readBootIdentity() is null where neither source exists or uptime is malformed', async () => {
  assert.equal(await readBootIdentity(deps({})), null);
  assert.equal(await readBootIdentity(deps({ [PROC_UPTIME_PATH]: 'garbage\n' })), null);
  assert.equal(await readBootIdentity(deps({ [PROC_UPTIME_PATH]: '' })), null);
  assert.equal(await readBootIdentity(deps({ [PROC_UPTIME_PATH]: '-5 1' })), null);
});

void test('readBootIdentity() honours injected paths', async () => {
  const identity = await readBootIdentity(
    deps({ '/fake/uptime': '10 1' }, { bootIdPath: '/fake/boot_id', uptimePath: '/fake/uptime' }),
  );
  assert.deepEqual(identity, { bootId: null, bootTimeMs: NOW_MS - 10_000 });
});

void test(`${BOOT_ID_FILE_ENV} overrides the real boot id with the file's trimmed content`, async () => {
  const fake = deps(
    { [LINUX_BOOT_ID_PATH]: BOOT_ID, '/run/fake-boot': '  boot-2\n' },
    { env: { [BOOT_ID_FILE_ENV]: '/run/fake-boot' } },
  );
  const identity = await readBootIdentity(fake);
  assert.deepEqual(identity, { bootId: 'boot-2', bootTimeMs: null });
  assert.deepEqual(fake.reads, ['/run/fake-boot', PROC_UPTIME_PATH], 'never the real boot id');
});

void test(`an empty ${BOOT_ID_FILE_ENV} counts as unset`, async () => {
  const identity = await readBootIdentity(
    deps({ [LINUX_BOOT_ID_PATH]: BOOT_ID }, { env: { [BOOT_ID_FILE_ENV]: '' } }),
  );
  assert.equal(identity?.bootId, BOOT_ID);
});

void test(`a ${BOOT_ID_FILE_ENV} that cannot be read rejects instead of falling back`, async () => {
  const fake = deps(
    { [LINUX_BOOT_ID_PATH]: BOOT_ID },
    { env: { [BOOT_ID_FILE_ENV]: '/run/missing' } },
  );
  await assert.rejects(readBootIdentity(fake), (error) => {
    assert.ok(isYacronError(error, 'YC_ERR_CONFIG_IO'));
    assert.match(
      error.message,
      /^Cannot read the boot id file YACRON2_BOOT_ID_FILE=\/run\/missing: ENOENT/,
    );
    return true;
  });
  assert.deepEqual(fake.reads, ['/run/missing'], 'the real boot id is never consulted');
});

void test(`an empty ${BOOT_ID_FILE_ENV} file rejects`, async () => {
  const fake = deps({ '/run/empty': '\n\n' }, { env: { [BOOT_ID_FILE_ENV]: '/run/empty' } });
  await assert.rejects(readBootIdentity(fake), (error) =>
    isYacronError(error, 'YC_ERR_CONFIG_INVALID'),
  );
});

void test(`${BOOT_ID_FILE_ENV} works against the real filesystem`, async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'yacron2-boot-id-'));
  try {
    const file = path.join(dir, 'boot_id');
    await writeFile(file, 'container-boot-1\n');
    const env = { [BOOT_ID_FILE_ENV]: file };
    assert.equal((await readBootIdentity({ env }))?.bootId, 'container-boot-1');
    await writeFile(file, 'container-boot-2\n');
    assert.equal((await readBootIdentity({ env }))?.bootId, 'container-boot-2', 'a fake reboot');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

void test('readBootIdentity() with no deps reads this machine, stable across calls', async () => {
  const first = await readBootIdentity();
  const second = await readBootIdentity();
  assert.equal(typeof first?.bootId, existsSync(LINUX_BOOT_ID_PATH) ? 'string' : 'object');
  assert.equal(typeof first?.bootTimeMs, existsSync(PROC_UPTIME_PATH) ? 'number' : 'object');
  if (!existsSync(LINUX_BOOT_ID_PATH) && !existsSync(PROC_UPTIME_PATH)) assert.equal(first, null);
  if (first && second) assert.ok(sameBoot(first, second));
});

void test('sameBoot() compares boot ids exactly when both have one, whatever the boot times', () => {
  const a = { bootId: BOOT_ID, bootTimeMs: NOW_MS };
  assert.ok(sameBoot(a, { bootId: BOOT_ID, bootTimeMs: null }));
  assert.ok(sameBoot(a, { bootId: BOOT_ID, bootTimeMs: NOW_MS + 3_600_000 }));
  assert.ok(!sameBoot(a, { bootId: BOOT_ID.toUpperCase(), bootTimeMs: NOW_MS }));
  assert.ok(!sameBoot(a, { bootId: 'other', bootTimeMs: NOW_MS }), 'a quick reboot');
});

void test('sameBoot() allows boot times at most 60 s apart', () => {
  const at = (bootTimeMs: number) => ({ bootId: null, bootTimeMs });
  assert.equal(BOOT_TIME_TOLERANCE_MS, 60_000);
  assert.ok(sameBoot(at(NOW_MS), at(NOW_MS + 1_500)));
  assert.ok(sameBoot(at(NOW_MS), at(NOW_MS - 60_000)), 'the bound is inclusive');
  assert.ok(!sameBoot(at(NOW_MS), at(NOW_MS + 60_001)));
});

void test('sameBoot() falls back to the boot times when either side has no boot id', () => {
  const both = { bootId: BOOT_ID, bootTimeMs: NOW_MS };
  const time = { bootId: null, bootTimeMs: NOW_MS + 30_000 };
  assert.ok(sameBoot(both, time));
  assert.ok(sameBoot(time, both));
  assert.ok(!sameBoot({ bootId: BOOT_ID, bootTimeMs: null }, time), 'nothing to compare');
  assert.ok(!sameBoot({ bootId: null, bootTimeMs: null }, { bootId: null, bootTimeMs: null }));
});

void test('a daemon restart later in the same boot derives the same boot; a reboot does not', async () => {
  const clock = new FakeClock(NOW_MS);
  const read = (uptime: string) =>
    readBootIdentity({ ...fakeFiles({ [PROC_UPTIME_PATH]: uptime }), clock });
  const firstStart = await read('3600.12 10.00\n');
  await clock.advance(2 * 3_600_000);
  clock.setWall(clock.now() + 20_000); // NTP stepped the wall clock meanwhile
  const restart = await read('10800.98 30.00\n');
  const afterReboot = await read('42.00 1.00\n');
  assert.ok(firstStart && restart && afterReboot);
  assert.ok(sameBoot(firstStart, restart));
  assert.ok(!sameBoot(firstStart, afterReboot));
});
