// E2E: the job-facing KV, cursor and idempotency commands, called by real jobs of a real daemon
// through the real CLI (docs/job-state.md): a value survives a daemon restart, a cursor never
// moves backwards, two racing claims have exactly one winner.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { readIfExists, readLines, startDaemon, waitForFile, waitForLines } from './harness.js';
import { onceJob, useJobState } from './job-fixture.test.js';

test(
  'a KV value set by one daemon is read by a job of the next one on the same store',
  { timeout: 60_000 },
  async (t) => {
    const setup = await useJobState(t);
    const config = await setup.writeJobs(
      `jobs:\n${onceJob(
        setup,
        'writer',
        `{
  yacron2 state set greeting 'hello world' && \\
  yacron2 state set config '{"n": 3, "tags": ["a", "é"]}' --json && \\
  yacron2 state set shared yes --global
} 2> ${setup.file('write-errors')}
echo "done $?" > ${setup.file('written')}`,
      )}`,
    );
    const first = startDaemon(t, ['-c', config], { env: setup.env });
    assert.equal(
      await waitForFile(join(setup.dir, 'written'), (text) => text.endsWith('\n')),
      'done 0\n',
      readIfExists(join(setup.dir, 'write-errors')) ?? '',
    );
    assert.equal(await first.stop(), 0);

    await setup.writeJobs(
      `jobs:\n${onceJob(
        setup,
        'writer-reads',
        `{
  yacron2 state get greeting --scope writer; echo "rc=$?"
  yacron2 state get config --scope writer
  yacron2 state keys --scope writer
  yacron2 state get shared --global
  yacron2 state get greeting; echo "own scope rc=$?"
} > ${setup.file('read.txt')} 2>&1
echo end >> ${setup.file('read.txt')}`,
        'stateAllowedScopes:\n  - writer',
      )}`,
    );
    const second = startDaemon(t, ['-c', config], { env: setup.env });
    await waitForFile(join(setup.dir, 'read.txt'), (text) => text.endsWith('end\n'));
    assert.deepEqual(readLines(join(setup.dir, 'read.txt')), [
      'hello world',
      'rc=0',
      '{"n": 3, "tags": ["a", "\\u00e9"]}',
      'config',
      'greeting',
      'yes',
      'yacron2 state: key not found: greeting',
      'own scope rc=4',
      'end',
    ]);
    assert.equal(await second.stop(), 0);
  },
);

test(
  'a cursor never moves backwards under out-of-order advances from racing jobs',
  { timeout: 60_000 },
  async (t) => {
    const setup = await useJobState(t);
    const sequences: Record<string, number[]> = {
      a: [5, 3, 10, 7, 2, 12],
      b: [9, 1, 11, 4, 8, 6],
      c: [2, 12, 3, 9, 1, 10],
    };
    const jobs = Object.entries(sequences)
      .map(([name, values]) =>
        onceJob(
          setup,
          `advance-${name}`,
          `for v in ${values.join(' ')}; do yacron2 cursor advance watermark "$v" --global >> ${setup.file(`seen-${name}`)}; done
echo end >> ${setup.file(`seen-${name}`)}`,
        ),
      )
      .join('');
    const config = await setup.writeJobs(`jobs:\n${jobs}`);
    const daemon = startDaemon(t, ['-c', config, '--reload-interval', '1'], { env: setup.env });
    const seen: Record<string, number[]> = {};
    for (const name of Object.keys(sequences)) {
      const lines = await waitForLines(join(setup.dir, `seen-${name}`), 7, 30_000);
      assert.equal(lines.at(-1), 'end');
      seen[name] = lines.slice(0, -1).map(Number);
    }
    for (const [name, printed] of Object.entries(seen)) {
      // Each print is the cursor after that advance: at least the value sent, and never lower
      // than what this job saw before (whatever the other jobs did in between).
      printed.forEach((value, index) => {
        assert.ok(value >= sequences[name]![index]!, `${name}: ${printed.join(',')}`);
        if (index > 0)
          assert.ok(value >= printed[index - 1]!, `${name} went backwards: ${printed.join(',')}`);
      });
    }
    assert.equal(Math.max(...Object.values(seen).flat()), 12);
    assert.deepEqual(
      Object.values(seen).map((printed) => printed.at(-1)),
      [12, 12, 12],
    );

    // A rewind needs --force; a plain advance to a lower value leaves 12.
    await setup.writeJobs(
      `jobs:\n${onceJob(
        setup,
        'rewind',
        `{
  yacron2 cursor advance watermark 4 --global
  yacron2 cursor advance watermark 4 --global --force
  yacron2 cursor get watermark --global
  yacron2 cursor get never-set; echo "rc=$?"
} > ${setup.file('rewind.txt')} 2>&1`,
      )}`,
    );
    await waitForLines(join(setup.dir, 'rewind.txt'), 5, 30_000);
    assert.deepEqual(readLines(join(setup.dir, 'rewind.txt')), [
      '12',
      '4',
      '4',
      'yacron2 cursor: cursor not set: never-set',
      'rc=4',
    ]);
    assert.equal(await daemon.stop(), 0);
  },
);

test(
  'two jobs racing `idempotent` on one key: exactly one wins (exit 0), the other gets 5',
  { timeout: 60_000 },
  async (t) => {
    const setup = await useJobState(t);
    const racer = (name: string): string =>
      onceJob(
        setup,
        name,
        `yacron2 idempotent "charge-2026-06-01" --global
echo "${name} $?" >> ${setup.file('claims')}`,
      );
    const config = await setup.writeJobs(
      `jobs:\n${racer('racer-1')}${racer('racer-2')}${racer('racer-3')}`,
    );
    const daemon = startDaemon(t, ['-c', config], { env: setup.env });
    const claims = await waitForLines(join(setup.dir, 'claims'), 3, 30_000);
    const codes = claims.map((line) => line.split(' ')[1]).sort();
    assert.deepEqual(codes, ['0', '5', '5'], claims.join(' | '));
    assert.equal(await daemon.stop(), 0);
  },
);
