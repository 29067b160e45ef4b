// E2E: two daemons with one configuration on one filesystem store (docs/dags.md "Fleet
// coordination and crash resume"). A manual trigger on one node, and the same backfill posted to
// both at once (both create the runs and race for their advance leases), run every task exactly
// once (a witness file every task appends to); a node killed with its tasks mid-run (a crashed
// host) leaves the run to the other node, which adopts it once the advance lease lapses and
// finishes it without re-running the finished tasks.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { readLines } from './harness.js';
import { useJobState } from './job-fixture.test.js';
import { WEB, postJson, startDagDaemon, waitForRun } from './dag-fixture.test.js';

/** Every task appends `<runKey> <taskkey> <node>` to the witness file. */
const witnessLine = (witness: string): string =>
  `echo "$YACRON2_DAG_RUN_KEY $YACRON2_DAG_TASKKEY $NODE" >> ${witness}`;

test(
  'two daemons on one store: a trigger and a raced backfill run every task exactly once',
  { timeout: 60_000 },
  async (t) => {
    const setup = await useJobState(t);
    const witness = setup.file('witness');
    const deps = (ids: string[]): string =>
      `        dependsOn:\n${ids.map((id) => `          - ${id}\n`).join('')}`;
    const command = `        command: ${witnessLine(witness)}\n`;
    const config = await setup.writeJobs(`${WEB}dags:
  - name: fan
    schedule: "0 * * * *"
    enabled: false
    tasks:
      - id: split
        command: printf '[1, 2, 3]' | yacron2 xcom push --key parts && ${witnessLine(witness)}
      - id: left
${deps(['split'])}${command}      - id: right
${deps(['split'])}${command}      - id: each
${deps(['split'])}        expand:
          fromTask: split
          key: parts
${command}      - id: join
${deps(['left', 'right', 'each'])}${command}`);
    const [a, b] = await Promise.all([
      startDagDaemon(t, config, { ...setup.env, NODE: 'a' }),
      startDagDaemon(t, config, { ...setup.env, NODE: 'b' }),
    ]);

    const trigger = await postJson(`${a.base}/dags/fan/trigger`);
    assert.equal(trigger.status, 200, trigger.text);
    const { runKey } = JSON.parse(trigger.text) as { runKey: string };
    // Both nodes answer from the one store.
    const done = await waitForRun(b.base, 'fan', runKey, (run) => run.state !== 'running');
    assert.equal(done.state, 'success');

    // The same backfill on both nodes at once: both create-if-absent the three runs and kick an
    // advancer for each; the advance lease lets one node advance each run.
    const window = { from: '2026-01-01T00:00:00Z', to: '2026-01-01T02:00:00Z' };
    const posted = await Promise.all(
      [a, b].map((node) => postJson(`${node.base}/dags/fan/backfill`, window)),
    );
    for (const response of posted)
      assert.deepEqual(JSON.parse(response.text), { ok: true, created: 3 });
    const backfilled = ['00', '01', '02'].map((hour) => `2026-01-01T${hour}:00:00_00:00`);
    for (const key of backfilled) {
      const run = await waitForRun(
        a.base,
        'fan',
        key,
        (candidate) => candidate.state !== 'running',
      );
      assert.equal(run.state, 'success', key);
      assert.equal(run.kind, 'backfill');
    }

    const taskKeys = ['split', 'left', 'right', 'each#0', 'each#1', 'each#2', 'join'];
    const lines = readLines(join(setup.dir, 'witness'));
    const ran = (key: string): string[] =>
      lines.filter((line) => line.startsWith(`${key} `)).map((line) => line.split(' ')[1]!);
    for (const key of [runKey, ...backfilled]) {
      assert.deepEqual(ran(key).sort(), [...taskKeys].sort(), `${key}: every task exactly once`);
      // One node advanced the whole run: every task ran where the run's lease was held.
      const nodes = new Set(
        lines.filter((line) => line.startsWith(`${key} `)).map((line) => line.split(' ')[2]),
      );
      assert.equal(nodes.size, 1, `${key} ran on ${[...nodes].join(', ')}`);
    }
    assert.equal(lines.length, 4 * taskKeys.length);
    const listed = JSON.parse(await (await fetch(`${b.base}/dags/fan/runs`)).text()) as {
      runs: unknown[];
    };
    assert.equal(listed.runs.length, 4);
    await Promise.all([a.daemon.stop(), b.daemon.stop()]);
  },
);

test(
  'a node killed with its tasks mid-run: the other node adopts the run and finishes it',
  { timeout: 120_000 },
  async (t) => {
    const setup = await useJobState(t);
    const witness = setup.file('witness');
    const config = await setup.writeJobs(`${WEB}dags:
  - name: long
    tasks:
      - id: first
        command: ${witnessLine(witness)}
      - id: slow
        dependsOn:
          - first
        retries: 1
        command: ${witnessLine(witness)}; sleep 3; echo "slow end $NODE" >> ${witness}
      - id: last
        dependsOn:
          - slow
        command: ${witnessLine(witness)}
`);
    const [a, b] = await Promise.all([
      startDagDaemon(t, config, { ...setup.env, NODE: 'a' }),
      startDagDaemon(t, config, { ...setup.env, NODE: 'b' }),
    ]);
    const { runKey } = JSON.parse((await postJson(`${a.base}/dags/long/trigger`)).text) as {
      runKey: string;
    };
    const running = await waitForRun(
      b.base,
      'long',
      runKey,
      (run) => run.tasks['slow']!.pid !== null,
    );
    const killedProc = running.tasks['slow']!.proc;
    // A crashed host: the daemon and its task's process group die together.
    await a.daemon.kill();

    // Adoption waits for the advance lease to lapse (30 s TTL) and the next 15 s scan.
    const run = await waitForRun(
      b.base,
      'long',
      runKey,
      (candidate) => candidate.state !== 'running',
      75_000,
    );
    assert.equal(run.state, 'success');
    assert.equal(run.tasks['first']!.attempt, 1);
    // The attempt lost with its node was retried on the survivor.
    assert.equal(run.tasks['slow']!.attempt, 2);
    assert.notEqual(run.tasks['slow']!.proc, killedProc);
    assert.deepEqual(readLines(join(setup.dir, 'witness')), [
      `${runKey} first a`,
      `${runKey} slow a`,
      `${runKey} slow b`,
      'slow end b',
      `${runKey} last b`,
    ]);
    await b.daemon.stop();
  },
);
