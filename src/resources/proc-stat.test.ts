import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { createSystemProcSource } from './proc-source.js';
import { parseProcStat } from './proc-stat.js';
import { parseAuxv, readSystemConstants } from './system-constants.js';
import { statLine } from './resources-fixture.test.js';

describe('parseProcStat', () => {
  test('reads the fields the samplers use from a kernel stat line', () => {
    const line =
      '9932 (bash) S 9931 9932 9932 0 -1 4194560 15003 113944 0 1 8 8 91 19 20 0 1 0 576411 5246976 996 18446744073709551615 0\n';
    assert.deepEqual(parseProcStat(line), {
      pid: 9932,
      state: 'S',
      ppid: 9931,
      pgrp: 9932,
      session: 9932,
      userTicks: 8,
      systemTicks: 8,
      childUserTicks: 91,
      childSystemTicks: 19,
      startTicks: 576411,
      rssPages: 996,
    });
  });

  test('counts fields from the last parenthesis, whatever the command name holds', () => {
    const stat = parseProcStat(
      statLine({ pid: 7, ppid: 1, comm: 'evil) R 1 2 3 (x', userTicks: 42, rssPages: 9 }),
    );
    assert.equal(stat?.pid, 7);
    assert.equal(stat?.ppid, 1);
    assert.equal(stat?.userTicks, 42);
    assert.equal(stat?.rssPages, 9);
  });

  test('refuses text that is not a stat line', () => {
    assert.equal(parseProcStat(''), undefined);
    assert.equal(parseProcStat('12 (cut short) S 1 2'), undefined);
    assert.equal(parseProcStat('no parentheses here'), undefined);
  });

  test('parses this process as the kernel shows it', () => {
    const stat = parseProcStat(readFileSync('/proc/self/stat', 'utf8'));
    assert.equal(stat?.pid, process.pid);
    assert.equal(stat?.ppid, process.ppid);
    assert.ok((stat?.rssPages ?? 0) > 0);
  });
});

describe('the system source', () => {
  test('a kept file sees the process change, and fails once the process is gone', async () => {
    const source = createSystemProcSource();
    const self = source.open('/proc/self/stat');
    assert.ok(self);
    const before = parseProcStat(self.read() ?? '');
    assert.equal(before?.pid, process.pid);
    // Spin until this process has used 50 ms of CPU (5 ticks), however long a loaded host takes
    // to grant it: a wall-clock spin can get no CPU at all.
    const start = process.cpuUsage();
    const used = (): number => {
      const delta = process.cpuUsage(start);
      return (delta.user + delta.system) / 1000;
    };
    while (used() < 50) Math.sqrt(Math.random());
    const after = parseProcStat(self.read() ?? '');
    assert.ok(
      (after?.userTicks ?? 0) + (after?.systemTicks ?? 0) > before.userTicks + before.systemTicks,
    );
    self.close();

    const child = spawn('sleep', ['30']);
    const file = source.open(`/proc/${child.pid}/stat`);
    assert.equal(parseProcStat(file?.read() ?? '')?.pid, child.pid);
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    assert.equal(file?.read(), undefined);
    file?.close();
    assert.equal(source.open('/proc/0/stat'), undefined);
  });
});

describe('system constants', () => {
  test('AT_CLKTCK and AT_PAGESZ are read from an auxv image, the rest skipped', () => {
    const words = [33n, 7n, 6n, 16384n, 17n, 250n, 25n, 99n, 0n, 0n];
    const bytes = new Uint8Array(words.length * 8);
    const view = new DataView(bytes.buffer);
    words.forEach((word, index) => view.setBigUint64(index * 8, word, true));
    assert.deepEqual(parseAuxv(bytes, 8, true), { clockTicksPerSecond: 250, pageSizeBytes: 16384 });
  });

  test('an empty auxv gives the Linux defaults', () => {
    assert.deepEqual(parseAuxv(new Uint8Array(0), 8, true), {
      clockTicksPerSecond: 100,
      pageSizeBytes: 4096,
    });
  });

  test('the real auxv agrees with getconf', () => {
    const constants = readSystemConstants(createSystemProcSource());
    const getconf = (name: string): number =>
      Number(spawnSync('getconf', [name], { encoding: 'utf8' }).stdout.trim());
    assert.equal(constants.clockTicksPerSecond, getconf('CLK_TCK'));
    assert.equal(constants.pageSizeBytes, getconf('PAGESIZE'));
  });
});
