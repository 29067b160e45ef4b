// E2E: `concurrencyScope: cluster` (docs/durable-state.md "Cluster concurrency slots"). Three real
// daemons share one filesystem store directory and run a Forbid job every second that takes ~1.5 s
// and writes start/end lines with its node name to a shared witness file: never two runs at once
// across the nodes. Then the holder is SIGKILLed mid-run (its job with it): another node takes
// the slot over once the lease lapses and closes the orphaned run as `reconciled-takeover`.
import assert from 'node:assert/strict';
import { appendFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  isReconciledRow,
  killAtTeardown,
  processExists,
  readLines,
  readStoreStream,
  shellQuote,
  startDaemon,
  useTempDir,
  waitForFile,
  waitForLines,
  waitForStoreRecords,
  waitUntil,
  writeConfig,
  type DaemonProcess,
} from './harness.js';

const NODES = ['node-a', 'node-b', 'node-c'] as const;
type Node = (typeof NODES)[number];

/** The most runs at once seen in the witness (`start`, `end` and the test's `killed` lines). */
function maxConcurrent(lines: readonly string[]): number {
  let running = 0;
  let max = 0;
  for (const line of lines) {
    const [edge] = line.split(' ');
    if (edge === 'start') running += 1;
    else if (edge === 'end' || edge === 'killed') running -= 1;
    max = Math.max(max, running);
  }
  return max;
}

test(
  'cluster slots: 3 daemons never overlap a Forbid job; a SIGKILLed holder is reconciled on takeover',
  { timeout: 90_000 },
  async (t) => {
    const dir = await useTempDir(t);
    const store = join(dir, 'store');
    const witness = join(dir, 'witness.txt');
    const hold = join(dir, 'hold');
    const w = shellQuote(witness);
    // With the hold file present a run announces itself and then hangs: the test kills it there.
    const config = await writeConfig(
      dir,
      `jobs:
  - name: report
    command: |
      echo "start $NODE $$" >> ${w}
      sleep 1.5
      if [ -e ${shellQuote(hold)} ]; then echo "hold $NODE $$" >> ${w}; exec sleep 60; fi
      echo "end $NODE $$" >> ${w}
    schedule: "* * * * * * *"
    concurrencyPolicy: Forbid
    concurrencyScope: cluster
    captureStdout: false
    captureStderr: false
state:
  path: ${shellQuote(store)}
  slotTtlSeconds: 5
  jobApi:
    enabled: false
`,
    );
    const daemons = new Map<Node, DaemonProcess>();
    for (const node of NODES) {
      daemons.set(node, startDaemon(t, ['-c', config], { env: { ...process.env, NODE: node } }));
    }
    for (const daemon of daemons.values()) await daemon.waitForLog(/^State store ready at /);

    // Phase 1: six complete runs, never two at once.
    await waitForFile(witness, (content) => content.split('\nend ').length - 1 >= 6, 30_000);
    assert.equal(maxConcurrent(readLines(witness)), 1, readLines(witness).join('\n'));

    // Phase 2: the holder hangs mid-run; SIGKILL its daemon and its job.
    writeFileSync(hold, '');
    const held = await waitForFile(witness, (content) => /\nhold \S+ \d+\n/.test(content), 15_000);
    const [, victim, pidText] = /\nhold (\S+) (\d+)\n/.exec(held)!;
    const pid = Number(pidText);
    killAtTeardown(t, () => [pid]);
    await daemons.get(victim as Node)!.stop('SIGKILL');
    process.kill(-pid, 'SIGKILL');
    await waitUntil(() => !processExists(pid), `the job process ${pid} to die`, {
      timeoutMs: 10_000,
    });
    appendFileSync(witness, `killed ${victim} ${pid}\n`);
    rmSync(hold);
    const survivors = [...daemons].filter(([node]) => node !== victim).map(([, d]) => d);
    const takeover = await Promise.any(
      survivors.map((daemon) =>
        daemon.waitForLog(/^Job report: took over its cluster concurrency slot from /, 30_000),
      ),
    ).catch((error: unknown) => {
      // What the takeover judged by: the in-flight stream (oldest first; it reads the newest).
      const inflight = JSON.stringify(readStoreStream(store, 'inflight/report'));
      throw new Error(`no takeover; victim ${victim}; inflight/report held ${inflight}`, {
        cause: error,
      });
    });
    assert.match(
      takeover.msg,
      new RegExp(
        `^Job report: took over its cluster concurrency slot from ${hostname()}, whose run started at \\S+ never finished \\(daemon crash, or the node lost access to the state store mid-run\\); recorded as outcome unknown$`,
      ),
    );
    const rows = await waitForStoreRecords(store, 'runs/report', (records) =>
      records.some(isReconciledRow),
    );
    assert.equal(rows.filter(isReconciledRow).length, 1);
    const inflight = await waitForStoreRecords(store, 'inflight/report', (records) =>
      records.some((record) => record.reason === 'reconciled-takeover'),
    );
    assert.equal(inflight.filter((record) => record.reason === 'reconciled-takeover').length, 1);

    // The survivors go on taking turns; then a graceful stop.
    const before = readLines(witness).length;
    await waitForLines(witness, before + 4, 20_000);
    for (const daemon of survivors) assert.equal(await daemon.stop(), 0);
    const lines = readLines(witness);
    assert.equal(maxConcurrent(lines), 1, lines.join('\n'));
    const nodes = new Set(
      lines.filter((line) => line.startsWith('start ')).map((l) => l.split(' ')[1]),
    );
    assert.ok(nodes.size >= 2, `runs on ${[...nodes].join(', ')}`);
  },
);
