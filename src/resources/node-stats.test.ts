import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FakeClock, systemClock } from '../common/index.js';
import { countCpuList, findCgroup2Mount } from './cgroup.js';
import { MIN_REFRESH_MS, NodeStatsReader } from './node-stats.js';
import { FileTree, statLine } from './resources-fixture.test.js';

const CONSTANTS = { clockTicksPerSecond: 100, pageSizeBytes: 4096 };
const GIB = 1024 ** 3;

/** /proc/stat with busy and idle jiffies spread over `cpus` CPUs. */
function procStat(busy: number, idle: number, cpus = 4): string {
  const lines = [`cpu  ${busy} 0 0 ${idle} 0 0 0 0 0 0`];
  for (let i = 0; i < cpus; i++) lines.push(`cpu${i} 0 0 0 0 0 0 0 0 0 0`);
  return `${lines.join('\n')}\nintr 1 2 3\nctxt 4\n`;
}

function meminfo(totalKib: number, availableKib: number): string {
  return `MemTotal:       ${totalKib} kB\nMemFree:          1000 kB\nMemAvailable:   ${availableKib} kB\nBuffers:            0 kB\n`;
}

const SELF = (ticks: number): string =>
  statLine({ pid: 4242, ppid: 1, userTicks: ticks, rssPages: 2560 });

function hostTree(): FileTree {
  return new FileTree({
    '/proc/stat': procStat(1000, 3000),
    '/proc/meminfo': meminfo(16 * 1024 * 1024, 12 * 1024 * 1024),
    '/proc/self/stat': SELF(100),
  });
}

/** A systemd service in a slice: the slice limits CPU to 1.5 cores, the service memory to 512 MiB. */
function cgroupTree(): FileTree {
  const root = '/sys/fs/cgroup';
  return hostTree()
    .set(
      '/proc/self/mountinfo',
      '22 1 8:1 / / rw - ext4 /dev/sda1 rw\n30 22 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n',
    )
    .set('/proc/self/cgroup', '0::/batch.slice/yacron2.service\n')
    .set(`${root}/batch.slice/yacron2.service/memory.max`, `${512 * 1024 * 1024}\n`)
    .set(`${root}/batch.slice/yacron2.service/memory.current`, `${300 * 1024 * 1024}\n`)
    .set(
      `${root}/batch.slice/yacron2.service/memory.stat`,
      `anon 1\ninactive_file ${44 * 1024 * 1024}\n`,
    )
    .set(`${root}/batch.slice/yacron2.service/cpu.max`, 'max 100000\n')
    .set(`${root}/batch.slice/memory.max`, 'max\n')
    .set(`${root}/batch.slice/cpu.max`, '150000 100000\n')
    .set(`${root}/batch.slice/cpu.stat`, 'usage_usec 5000000\nuser_usec 4000000\n');
}

describe('NodeStatsReader on the host', () => {
  test('the first reading has CPU 0; the next measures busy jiffies between the two', async () => {
    const clock = new FakeClock();
    const tree = hostTree();
    const reader = new NodeStatsReader({ clock, source: tree, constants: CONSTANTS });
    assert.deepEqual(reader.read(), {
      cpuPercent: 0,
      cpuCount: 4,
      memPercent: 25,
      memUsedBytes: 4 * GIB,
      memTotalBytes: 16 * GIB,
      procRssBytes: 2560 * 4096,
      procCpuPercent: 0,
    });
    tree.set('/proc/stat', procStat(1000 + 300, 3000 + 100)).set('/proc/self/stat', SELF(150));
    await clock.advance(2000);
    const second = reader.read();
    assert.equal(second?.cpuPercent, 75);
    assert.equal(second?.procCpuPercent, 25);
  });

  test('readings closer than MIN_REFRESH_MS are served again', async () => {
    const clock = new FakeClock();
    const tree = hostTree();
    const reader = new NodeStatsReader({ clock, source: tree, constants: CONSTANTS });
    const first = reader.read();
    tree.set('/proc/stat', procStat(2000, 3000));
    await clock.advance(MIN_REFRESH_MS - 1);
    assert.equal(reader.read(), first);
    assert.equal(reader.latest(), first);
    await clock.advance(1);
    assert.equal(reader.read()?.cpuPercent, 100);
  });

  test('without /proc the reading is null', () => {
    const reader = new NodeStatsReader({
      clock: new FakeClock(),
      source: new FileTree({}),
      constants: CONSTANTS,
    });
    assert.equal(reader.read(), null);
    assert.equal(reader.latest(), null);
  });

  test('without /proc/self the process figures are left out', () => {
    const tree = hostTree();
    tree.files.delete('/proc/self/stat');
    const reading = new NodeStatsReader({
      clock: new FakeClock(),
      source: tree,
      constants: CONSTANTS,
    }).read();
    assert.ok(reading);
    assert.equal('procRssBytes' in reading, false);
    assert.equal('procCpuPercent' in reading, false);
  });

  test('reads this machine', () => {
    const reading = new NodeStatsReader({ clock: systemClock }).read();
    assert.ok(reading);
    assert.equal(reading.cpuPercent, 0);
    assert.ok(reading.cpuCount >= 1);
    assert.ok(reading.memTotalBytes > 0 && reading.memUsedBytes > 0);
    assert.ok((reading.procRssBytes ?? 0) > 0);
  });
});

describe('NodeStatsReader under cgroup v2 limits', () => {
  test('memory and CPU describe the slice: the tightest limit along the cgroup path', async () => {
    const clock = new FakeClock();
    const tree = cgroupTree();
    const reader = new NodeStatsReader({ clock, source: tree, constants: CONSTANTS });
    const first = reader.read();
    assert.equal(first?.cpuCount, 2, '1.5 CPUs rounded up');
    assert.equal(first?.memTotalBytes, 512 * 1024 * 1024);
    assert.equal(
      first?.memUsedBytes,
      256 * 1024 * 1024,
      'the working set: current - inactive_file',
    );
    assert.equal(first?.memPercent, 50);
    // 1.2 CPU-seconds used over 2 s of wall time out of 1.5 CPUs: 40 %.
    tree.set('/sys/fs/cgroup/batch.slice/cpu.stat', 'usage_usec 6200000\n');
    await clock.advance(2000);
    assert.equal(reader.read()?.cpuPercent, 40);
  });

  test('a container (cgroup namespace) reads its limits at the mount point', () => {
    const tree = hostTree()
      .set('/proc/self/mountinfo', '40 30 0:30 / /sys/fs/cgroup ro - cgroup2 cgroup rw\n')
      .set('/proc/self/cgroup', '0::/\n')
      .set('/sys/fs/cgroup/memory.max', `${GIB}\n`)
      .set('/sys/fs/cgroup/memory.current', `${GIB / 4}\n`)
      .set('/sys/fs/cgroup/cpuset.cpus.effective', '0-1\n')
      .set('/sys/fs/cgroup/cpu.stat', 'usage_usec 1\n');
    const reading = new NodeStatsReader({
      clock: new FakeClock(),
      source: tree,
      constants: CONSTANTS,
    }).read();
    assert.equal(reading?.memTotalBytes, GIB);
    assert.equal(reading?.memPercent, 25);
    assert.equal(reading?.cpuCount, 2, 'the cpuset allows 2 of the 4 CPUs');
  });

  test('a limit above the host memory, or a v1/hybrid host without v2 limits, reports the host', () => {
    const tree = hostTree()
      .set('/proc/self/mountinfo', '30 22 0:26 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n')
      .set('/proc/self/cgroup', '4:memory:/x\n0::/\n')
      .set('/sys/fs/cgroup/unified/memory.max', `${64 * GIB}\n`);
    const reading = new NodeStatsReader({
      clock: new FakeClock(),
      source: tree,
      constants: CONSTANTS,
    }).read();
    assert.equal(reading?.memTotalBytes, 16 * GIB);
    assert.equal(reading?.cpuCount, 4);
  });
});

describe('cgroup parsing', () => {
  test('cpuset lists', () => {
    assert.equal(countCpuList('0-3,6,8-9\n'), 7);
    assert.equal(countCpuList('5'), 1);
    assert.equal(countCpuList(''), null);
    assert.equal(countCpuList('3-1'), null);
    assert.equal(countCpuList('a'), null);
  });

  test('the cgroup2 mount, escapes undone; other filesystems ignored', () => {
    assert.deepEqual(
      findCgroup2Mount(
        '25 1 0:22 / /sys/fs/cgroup/systemd rw - cgroup cgroup rw,name=systemd\n' +
          '26 1 0:23 /sub /mnt/my\\040cgroup rw shared:1 - cgroup2 none rw\n',
      ),
      { point: '/mnt/my cgroup', root: '/sub' },
    );
    assert.equal(findCgroup2Mount('22 1 8:1 / / rw - ext4 /dev/sda1 rw\n'), null);
  });
});
