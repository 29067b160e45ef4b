import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseProcStat, type ProcStat } from './proc-stat.js';
import { statLine, type FakeProcess } from './resources-fixture.test.js';
import { TreeCpu } from './tree-cpu.js';

function stats(...processes: FakeProcess[]): ProcStat[] {
  return processes.map((proc) => parseProcStat(statLine(proc))!);
}

function totals(cpu: TreeCpu): [number, number] {
  return [cpu.userTicks, cpu.systemTicks];
}

describe('TreeCpu', () => {
  test('adds the growth of each live process', () => {
    const cpu = new TreeCpu();
    cpu.update(stats({ pid: 10, ppid: 1, userTicks: 5, systemTicks: 1 }));
    assert.deepEqual(totals(cpu), [5, 1]);
    cpu.update(
      stats(
        { pid: 10, ppid: 1, userTicks: 9, systemTicks: 2 },
        { pid: 11, ppid: 10, userTicks: 3, systemTicks: 0 },
      ),
    );
    assert.deepEqual(totals(cpu), [12, 2]);
  });

  test('a child reaped by its parent counts once: its last reading, then only what came after', () => {
    const cpu = new TreeCpu();
    cpu.update(
      stats(
        { pid: 10, ppid: 1, userTicks: 1 },
        { pid: 11, ppid: 10, userTicks: 40, systemTicks: 4 },
      ),
    );
    assert.deepEqual(totals(cpu), [41, 4]);
    // 11 ran 10 more user ticks, exited and was reaped: its final 50+4 moves into 10's children time.
    cpu.update(stats({ pid: 10, ppid: 1, userTicks: 1, childUserTicks: 50, childSystemTicks: 4 }));
    assert.deepEqual(totals(cpu), [51, 4]);
  });

  test('a departed subtree is subtracted as a whole from the grandparent that reaped it', () => {
    const cpu = new TreeCpu();
    cpu.update(
      stats(
        { pid: 10, ppid: 1 },
        { pid: 11, ppid: 10, userTicks: 20 },
        { pid: 12, ppid: 11, userTicks: 30 },
      ),
    );
    assert.deepEqual(totals(cpu), [50, 0]);
    // 11 reaped 12 (final 35), then exited (final own 22) and was reaped by 10.
    cpu.update(stats({ pid: 10, ppid: 1, childUserTicks: 22 + 35 }));
    assert.deepEqual(totals(cpu), [57, 0]);
  });

  test('a child that was never seen counts fully when its parent reaps it', () => {
    const cpu = new TreeCpu();
    cpu.update(stats({ pid: 10, ppid: 1, userTicks: 1 }));
    cpu.update(stats({ pid: 10, ppid: 1, userTicks: 1, childUserTicks: 25, childSystemTicks: 5 }));
    assert.deepEqual(totals(cpu), [26, 5]);
  });

  test('a process whose parent is outside the tree keeps what was seen, and never goes down', () => {
    const cpu = new TreeCpu();
    cpu.update(stats({ pid: 10, ppid: 1, userTicks: 30 }, { pid: 11, ppid: 10, userTicks: 10 }));
    // The root is reaped by the daemon (outside the tree), 11 lives on as an orphan.
    cpu.update(stats({ pid: 11, ppid: 1, userTicks: 12 }));
    assert.deepEqual(totals(cpu), [42, 0]);
    cpu.update([]);
    assert.deepEqual(totals(cpu), [42, 0]);
  });

  test('a reused pid starts from zero, and its predecessor is not taken from it', () => {
    const cpu = new TreeCpu();
    cpu.update(stats({ pid: 10, ppid: 1 }, { pid: 11, ppid: 10, userTicks: 10, startTicks: 5 }));
    cpu.update(
      stats(
        { pid: 10, ppid: 1, childUserTicks: 10 },
        { pid: 11, ppid: 10, userTicks: 3, startTicks: 9 },
      ),
    );
    assert.deepEqual(totals(cpu), [13, 0]);
  });
});
