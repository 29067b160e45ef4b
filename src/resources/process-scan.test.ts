import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ProcessScanner } from './process-scan.js';
import { FakeProc } from './resources-fixture.test.js';

/** Member pids per run key, sorted. */
function membersOf(result: ReturnType<ProcessScanner['scan']>): Record<number, number[]> {
  assert.ok(result, 'the pass ran');
  const out: Record<number, number[]> = {};
  for (const [run, stats] of result.members)
    out[run] = stats.map((s) => s.pid).sort((a, b) => a - b);
  return out;
}

/** A host: init, a daemon (100), and unrelated processes in their own sessions. */
function host(): FakeProc {
  return new FakeProc().add(
    { pid: 1, ppid: 0 },
    { pid: 100, ppid: 1 },
    { pid: 50, ppid: 1 },
    { pid: 51, ppid: 50, session: 50, pgrp: 50 },
  );
}

describe('ProcessScanner', () => {
  test('a run is its root, its session, its process group and their descendants', () => {
    const proc = host().add(
      // The run: root 200 leads session and group 200.
      { pid: 200, ppid: 100 },
      { pid: 201, ppid: 200, session: 200, pgrp: 200 },
      // Job control moved 202 to its own group inside the run's session.
      { pid: 202, ppid: 201, session: 200, pgrp: 202 },
      // A second run, root 300, with a grandchild.
      { pid: 300, ppid: 100 },
      { pid: 301, ppid: 300, session: 300, pgrp: 300 },
      { pid: 302, ppid: 301, session: 300, pgrp: 300 },
    );
    const scanner = new ProcessScanner(proc);
    const roots = new Map([
      [200, 1],
      [300, 2],
    ]);
    assert.deepEqual(membersOf(scanner.scan(roots, new Set([1, 2]), true)), {
      1: [200, 201, 202],
      2: [300, 301, 302],
    });
  });

  test('a descendant that left the session is found through its parent, and stays counted', () => {
    const proc = host().add({ pid: 200, ppid: 100 });
    const scanner = new ProcessScanner(proc);
    const roots = new Map([[200, 1]]);
    const active = new Set([1]);
    scanner.scan(roots, active, true);
    // A daemonising grandchild: its own session, parent listed after it (pid wrap).
    proc.add(
      { pid: 20, ppid: 210, session: 20, pgrp: 20 },
      { pid: 210, ppid: 200, session: 200, pgrp: 200 },
    );
    assert.deepEqual(membersOf(scanner.scan(roots, active, false)), { 1: [20, 200, 210] });
    // Its parent exits: it is reparented to init and still belongs to the run.
    proc.remove(210).update(20, { ppid: 1 });
    assert.deepEqual(membersOf(scanner.scan(roots, active, false)), { 1: [20, 200] });
  });

  test('processes outside every run are read once, not on every pass', () => {
    const proc = host().add({ pid: 200, ppid: 100 });
    const scanner = new ProcessScanner(proc);
    const roots = new Map([[200, 1]]);
    const active = new Set([1]);
    const first = scanner.scan(roots, active, true);
    assert.equal(first?.reads, 5);
    const second = scanner.scan(roots, active, false);
    assert.equal(second?.reads, 1, 'only the member is read again');
    proc.add({ pid: 60, ppid: 1 });
    assert.equal(scanner.scan(roots, active, false)?.reads, 2, 'plus the one new process');
  });

  test('a rescan re-reads everything once, so a root already seen joins its run', () => {
    const proc = host().add(
      { pid: 200, ppid: 100 },
      { pid: 201, ppid: 200, session: 200, pgrp: 200 },
    );
    const scanner = new ProcessScanner(proc);
    // Seen before the run was registered: classified as nobody's.
    assert.deepEqual(membersOf(scanner.scan(new Map(), new Set(), true)), {});
    const roots = new Map([[200, 1]]);
    assert.deepEqual(membersOf(scanner.scan(roots, new Set([1]), false)), {}, 'without a rescan');
    assert.deepEqual(membersOf(scanner.scan(roots, new Set([1]), true)), { 1: [200, 201] });
  });

  test("a reused pid is a new process: it does not inherit the old one's run", () => {
    const proc = host().add(
      { pid: 200, ppid: 100 },
      { pid: 201, ppid: 200, session: 200, pgrp: 200, startTicks: 5 },
    );
    const scanner = new ProcessScanner(proc);
    const roots = new Map([[200, 1]]);
    scanner.scan(roots, new Set([1]), true);
    proc.remove(201).add({ pid: 201, ppid: 50, session: 50, pgrp: 50, startTicks: 9 });
    assert.deepEqual(membersOf(scanner.scan(roots, new Set([1]), false)), { 1: [200] });
  });

  test('a root pid taken over by an unrelated session leader does not bring its session in', () => {
    const proc = host().add({ pid: 200, ppid: 100, startTicks: 5 });
    const scanner = new ProcessScanner(proc);
    const roots = new Map([[200, 1]]);
    scanner.scan(roots, new Set([1]), true);
    // The root exited (its run still waits for its pipes); pid 200 is reused by a new session.
    proc
      .remove(200)
      .add({ pid: 200, ppid: 1, startTicks: 80 }, { pid: 201, ppid: 200, session: 200, pgrp: 200 });
    assert.deepEqual(membersOf(scanner.scan(roots, new Set([1]), false)), {});
  });

  test('members of a run no longer monitored are left alone', () => {
    const proc = host().add(
      { pid: 200, ppid: 100 },
      { pid: 201, ppid: 200, session: 200, pgrp: 200 },
    );
    const scanner = new ProcessScanner(proc);
    scanner.scan(new Map([[200, 1]]), new Set([1]), true);
    proc.remove(200);
    const result = scanner.scan(new Map(), new Set(), false);
    assert.deepEqual(membersOf(result), {});
    assert.equal(result?.reads, 0, 'the leftover grandchild is not read');
  });

  test('members are read through kept files, closed when they exit or nothing is monitored', () => {
    const proc = host().add(
      { pid: 200, ppid: 100 },
      { pid: 201, ppid: 200, session: 200, pgrp: 200 },
    );
    const scanner = new ProcessScanner(proc);
    const roots = new Map([[200, 1]]);
    const active = new Set([1]);
    scanner.scan(roots, active, true);
    scanner.scan(roots, active, false);
    assert.equal(proc.openFiles, 2, 'opened once known as members');
    proc.update(201, { userTicks: 7 });
    const third = scanner.scan(roots, active, false);
    assert.equal(third?.members.get(1)?.find((stat) => stat.pid === 201)?.userTicks, 7);
    proc.remove(201);
    scanner.scan(roots, active, false);
    assert.equal(proc.openFiles, 1, 'the exited member`s file is closed');
    // The root's pid is reused by an unrelated process: its kept file fails, the new one is read.
    proc.remove(200).add({ pid: 200, ppid: 50, session: 50, pgrp: 50, startTicks: 99 });
    assert.deepEqual(membersOf(scanner.scan(roots, active, false)), {});
    assert.equal(proc.openFiles, 0);
    scanner.scan(new Map([[300, 2]]), new Set([2]), true);
    scanner.reset();
    assert.equal(proc.openFiles, 0);
  });

  test('no /proc listing: no pass', () => {
    const proc = host();
    proc.listable = false;
    assert.equal(new ProcessScanner(proc).scan(new Map(), new Set(), true), undefined);
  });
});
