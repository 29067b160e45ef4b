// E2E: DAG runs in a real daemon (docs/dags.md): a manual trigger over HTTP runs fan-out, fan-in,
// a mapped task over an XCom list, a retried task and the trigger rules, each task started after
// its upstreams finished; a sensor true on its third poke; approval gates approved and rejected;
// a backfill that creates its runs once; a running task's lines on its log stream and the run in
// the yacron2_dag_* metrics; and a daemon SIGKILLed mid-run that finishes the run on restart
// without running a finished task again; a trigger before the store opened; a task's statsd
// datagrams.
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { getJson, getText, readLines, startDaemon, waitUntil } from './harness.js';
import { useJobState } from './job-fixture.test.js';
import { WEB, daemonWithDags, postJson, waitForRun, type RunDoc } from './dag-fixture.test.js';

function startedAfter(run: RunDoc, task: string, upstreams: readonly string[]): void {
  const entry = run.tasks[task]!;
  for (const upstream of upstreams) {
    const before = run.tasks[upstream]!;
    assert.ok(
      entry.startedAt !== null &&
        before.finishedAt !== null &&
        entry.startedAt >= before.finishedAt,
      `${task} started after ${upstream} finished`,
    );
  }
}

test(
  'a triggered DAG: fan-out, fan-in, mapping over XCom, a retry, and both trigger rules',
  { timeout: 90_000 },
  async (t) => {
    const setup = await useJobState(t);
    const log = setup.file('log');
    const { daemon, base } = await daemonWithDags(
      t,
      setup,
      `  - name: etl
    tasks:
      - id: extract
        command: printf '["a", "b", "c"]' | yacron2 xcom push --key rows && echo extract >> ${log}
      - id: count
        dependsOn:
          - extract
        command: yacron2 xcom pull --task extract --key rows | wc -c | yacron2 xcom push --key size
      - id: each
        dependsOn:
          - extract
        expand:
          fromTask: extract
          key: rows
        command: echo "item $YACRON2_DAG_MAP_INDEX $YACRON2_DAG_MAP_ITEM $YACRON2_DAG_TASKKEY" >> ${log}
      - id: flaky
        dependsOn:
          - extract
        retries: 1
        retryDelaySeconds: 1
        command: |
          if [ ! -e ${setup.file('flaky-once')} ]; then touch ${setup.file('flaky-once')}; exit 3; fi
          echo "flaky attempt $YACRON2_ATTEMPT" >> ${log}
      - id: broken
        dependsOn:
          - extract
        command: exit 5
      - id: report
        dependsOn:
          - count
          - each
          - flaky
        command: echo "report $(yacron2 xcom pull --task count --key size)" >> ${log}
      - id: publish
        dependsOn:
          - report
          - broken
        command: echo publish >> ${log}
      - id: cleanup
        dependsOn:
          - report
          - broken
        triggerRule: all_done
        command: echo cleanup >> ${log}
`,
    );
    const list = await getJson<{ name: string; tasks: { id: string; mapped: boolean }[] }[]>(
      `${base}/dags`,
    );
    assert.deepEqual(
      list.map((dag) => dag.name),
      ['etl'],
    );
    assert.equal(list[0]!.tasks.find((task) => task.id === 'each')!.mapped, true);

    const trigger = await postJson(`${base}/dags/etl/trigger`);
    assert.equal(trigger.status, 200, trigger.text);
    const { runKey } = JSON.parse(trigger.text) as { runKey: string };
    assert.match(runKey, /^manual-[0-9a-f]{12}$/);
    const run = await waitForRun(base, 'etl', runKey, (candidate) => candidate.state !== 'running');

    assert.equal(run.state, 'failed');
    assert.equal(run.kind, 'manual');
    const states = Object.fromEntries(
      Object.entries(run.tasks).map(([key, entry]) => [key, entry.state]),
    );
    assert.deepEqual(states, {
      extract: 'success',
      count: 'success',
      each: 'expanded',
      'each#0': 'success',
      'each#1': 'success',
      'each#2': 'success',
      flaky: 'success',
      broken: 'failed',
      report: 'success',
      publish: 'upstream_failed',
      cleanup: 'success',
    });
    assert.equal(run.tasks['flaky']!.attempt, 2);
    assert.deepEqual(run.mapped['each']!.items, ['a', 'b', 'c']);
    startedAfter(run, 'count', ['extract']);
    startedAfter(run, 'each#0', ['extract']);
    startedAfter(run, 'report', ['count', 'each#0', 'each#1', 'each#2', 'flaky']);
    startedAfter(run, 'cleanup', ['report', 'broken']);

    const lines = readLines(join(setup.dir, 'log'));
    assert.equal(lines[0], 'extract');
    assert.deepEqual(lines.filter((line) => line.startsWith('item')).sort(), [
      'item 0 "a" each#0',
      'item 1 "b" each#1',
      'item 2 "c" each#2',
    ]);
    assert.ok(lines.includes('flaky attempt 1'));
    assert.ok(lines.includes(`report ${'["a", "b", "c"]'.length}`), lines.join('\n'));
    assert.ok(lines.includes('cleanup'));
    assert.ok(!lines.includes('publish'));

    const xcom = await getJson<{ entries: { taskkey: string; key: string; value?: string }[] }>(
      `${base}/dags/etl/runs/${runKey}/xcom`,
    );
    assert.deepEqual(
      xcom.entries.map((entry) => [entry.taskkey, entry.key, entry.value]),
      [
        ['count', 'size', `${'["a", "b", "c"]'.length}\n`],
        ['extract', 'rows', '["a", "b", "c"]'],
      ],
    );
    const runs = await getJson<{ runs: { runKey: string; taskStates: Record<string, number> }[] }>(
      `${base}/dags/etl/runs`,
    );
    assert.equal(runs.runs[0]!.runKey, runKey);
    assert.equal(runs.runs[0]!.taskStates['success'], 8);
    assert.equal((await fetch(`${base}/dags/nope/runs`)).status, 404);
    assert.equal((await postJson(`${base}/dags/nope/trigger`)).status, 404);
    await daemon.stop();
  },
);

test(
  "a running task's log stream shows its lines live; /metrics counts the run",
  { timeout: 60_000 },
  async (t) => {
    const setup = await useJobState(t);
    const go = setup.file('go');
    const { daemon, base } = await daemonWithDags(
      t,
      setup,
      `  - name: talk
    tasks:
      - id: speak
        captureStdout: true
        command: |
          echo one
          i=0; while [ ! -e ${go} ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done
          echo two
`,
    );
    const { runKey } = JSON.parse((await postJson(`${base}/dags/talk/trigger`)).text) as {
      runKey: string;
    };
    await waitForRun(base, 'talk', runKey, (run) => (run.tasks['speak']?.pid ?? null) !== null);
    const response = await fetch(`${base}/dags/talk/runs/${runKey}/tasks/speak/logs`);
    assert.equal(response.headers.get('content-type'), 'text/event-stream');
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let received = '';
    const readUntil = async (needle: string): Promise<void> => {
      while (!received.includes(needle)) {
        const chunk = await reader.read();
        assert.ok(!chunk.done, `the stream ended before ${JSON.stringify(needle)}: ${received}`);
        received += chunk.value;
      }
    };
    await readUntil('"one"');
    assert.ok(!received.includes('"two"'));
    writeFileSync(join(setup.dir, 'go'), '');
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      received += chunk.value;
    }
    assert.equal(
      received,
      'event: line\ndata: {"stream": "stdout", "line": "one"}\n\n' +
        'event: line\ndata: {"stream": "stdout", "line": "two"}\n\n' +
        'event: end\ndata: {}\n\n',
    );
    await waitForRun(base, 'talk', runKey, (run) => run.state === 'success');
    const after = await getText(`${base}/dags/talk/runs/${runKey}/tasks/speak/logs`);
    assert.equal(after, 'event: end\ndata: {"reason": "no-output"}\n\n');
    const metrics = await waitUntil(async () => {
      const text = await getText(`${base}/metrics`);
      return text.includes('yacron2_dag_runs_total{dag="talk",state="success"} 1')
        ? text
        : undefined;
    }, 'the run in yacron2_dag_runs_total');
    assert.match(
      metrics,
      /^yacron2_dag_task_attempts_total\{dag="talk",task="speak",status="success"\} 1$/m,
    );
    assert.match(metrics, /^yacron2_dag_task_running\{dag="talk",task="speak"\} 0$/m);
    await daemon.stop();
  },
);

test(
  'a sensor true on its third poke, gates approved and rejected, a backfill made once',
  { timeout: 90_000 },
  async (t) => {
    const setup = await useJobState(t);
    const pokes = setup.file('pokes');
    const { daemon, base } = await daemonWithDags(
      t,
      setup,
      `  - name: gated
    tasks:
      - id: wait
        type: sensor
        pokeIntervalSeconds: 1
        command: echo poke >> ${pokes}; [ "$(wc -l < ${pokes})" -ge 3 ]
      - id: ok
        type: approval
        dependsOn:
          - wait
      - id: no
        type: approval
        onReject: skip
        dependsOn:
          - wait
      - id: after-ok
        dependsOn:
          - ok
        command: "true"
      - id: after-no
        dependsOn:
          - no
        command: "true"
  - name: hourly
    schedule: "0 * * * *"
    tasks:
      - id: only
        command: "true"
`,
    );
    const { runKey } = JSON.parse((await postJson(`${base}/dags/gated/trigger`)).text) as {
      runKey: string;
    };
    await waitForRun(
      base,
      'gated',
      runKey,
      (run) =>
        run.tasks['ok']!.awaitingApproval === true && run.tasks['no']!.awaitingApproval === true,
    );
    const decide = (task: string, body: unknown) =>
      postJson(`${base}/dags/gated/runs/${runKey}/tasks/${task}/decision`, body);
    assert.equal((await decide('ok', { decision: 'maybe' })).status, 400);
    assert.equal((await decide('after-ok', { decision: 'approve' })).status, 409);
    assert.deepEqual(JSON.parse((await decide('ok', { decision: 'approve', by: 'alice' })).text), {
      ok: true,
      state: 'success',
    });
    assert.deepEqual(JSON.parse((await decide('no', { decision: 'reject' })).text), {
      ok: true,
      state: 'skipped',
    });
    const again = await decide('ok', { decision: 'approve' });
    assert.equal(again.status, 409);
    assert.match(again.text, /not awaiting approval/);
    const run = await waitForRun(
      base,
      'gated',
      runKey,
      (candidate) => candidate.state !== 'running',
    );
    assert.equal(run.state, 'success');
    assert.equal(run.tasks['wait']!.state, 'success');
    assert.equal(run.tasks['wait']!.pokeCount, 3);
    assert.equal(readLines(join(setup.dir, 'pokes')).length, 3);
    assert.deepEqual(run.tasks['ok']!.approval, {
      decision: 'approved',
      by: 'alice',
      at: run.tasks['ok']!.approval!.at,
    });
    assert.equal(run.tasks['no']!.approval!.by, 'api');
    assert.equal(run.tasks['after-ok']!.state, 'success');
    assert.equal(run.tasks['after-no']!.state, 'skipped');

    const window = { from: '2026-01-01T00:00:00', to: '2026-01-01T23:59:59Z' };
    assert.deepEqual(JSON.parse((await postJson(`${base}/dags/hourly/backfill`, window)).text), {
      ok: true,
      created: 24,
    });
    assert.deepEqual(JSON.parse((await postJson(`${base}/dags/hourly/backfill`, window)).text), {
      ok: true,
      created: 24,
    });
    const runs = await getJson<{ runs: { runKey: string; kind: string }[] }>(
      `${base}/dags/hourly/runs?limit=500`,
    );
    assert.equal(runs.runs.length, 24);
    assert.ok(runs.runs.every((entry) => entry.kind === 'backfill'));
    assert.ok(runs.runs.some((entry) => entry.runKey === '2026-01-01T05:00:00_00:00'));
    assert.equal((await postJson(`${base}/dags/gated/backfill`, window)).status, 400);
    assert.equal((await postJson(`${base}/dags/hourly/backfill`, { from: 1, to: 2 })).status, 400);
    assert.equal(
      (await postJson(`${base}/dags/hourly/backfill`, { from: window.to, to: window.from })).status,
      400,
    );
    await daemon.stop();
  },
);

test(
  'a daemon SIGKILLed mid-run resumes the run on restart without re-running finished tasks',
  { timeout: 120_000 },
  async (t) => {
    const setup = await useJobState(t);
    const log = setup.file('log');
    const dags = `  - name: long
    tasks:
      - id: first
        command: echo first >> ${log}
      - id: slow
        dependsOn:
          - first
        retries: 1
        command: echo "slow start $YACRON2_ATTEMPT" >> ${log}; sleep 3; echo "slow end $YACRON2_ATTEMPT" >> ${log}
      - id: last
        dependsOn:
          - slow
        command: echo last >> ${log}
`;
    const started = await daemonWithDags(t, setup, dags);
    const { runKey } = JSON.parse((await postJson(`${started.base}/dags/long/trigger`)).text) as {
      runKey: string;
    };
    const running = await waitForRun(
      started.base,
      'long',
      runKey,
      (run) => run.tasks['slow']!.pid !== null,
    );
    const orphan = running.tasks['slow']!.pid!;
    started.daemon.child.kill('SIGKILL');
    await started.daemon.exited();

    const restarted = startDaemon(t, ['-c', started.config], { env: setup.env });
    const record = await restarted.waitForLog(/^web: started listening on http:\/\/\S+$/);
    const base = /http:\/\/\S+$/.exec(record.msg)![0];
    const run = await waitForRun(
      base,
      'long',
      runKey,
      (candidate) => candidate.state !== 'running',
      60_000,
    );
    assert.equal(run.state, 'success');
    assert.equal(run.tasks['first']!.attempt, 1);
    // The orphaned attempt was waited for (never two slow processes at once), then retried.
    assert.equal(run.tasks['slow']!.attempt, 2);
    assert.notEqual(run.tasks['slow']!.pid, orphan);
    assert.deepEqual(readLines(join(setup.dir, 'log')), [
      'first',
      'slow start 0',
      'slow end 0',
      'slow start 1',
      'slow end 1',
      'last',
    ]);
    await restarted.stop();
  },
);

test(
  'before the store has opened, a trigger is a 503 with Retry-After',
  { timeout: 30_000 },
  async (t) => {
    const setup = await useJobState(t);
    // The store's parent is a regular file: opening fails and is retried in the background.
    writeFileSync(join(setup.dir, 'blocker'), '');
    const config = await setup.writeJobs(
      `${WEB}dags:\n  - name: etl\n    tasks:\n      - id: only\n        command: "true"\n`,
    );
    writeFileSync(
      config,
      readFileSync(config, 'utf8').replace(setup.store, join(setup.dir, 'blocker', 'store')),
    );
    const daemon = startDaemon(t, ['-c', config], { env: setup.env });
    const record = await daemon.waitForLog(/^web: started listening on http:\/\/\S+$/);
    await daemon.waitForLog(/^Cannot open the state store at /);
    const base = /http:\/\/\S+$/.exec(record.msg)![0];
    const trigger = await postJson(`${base}/dags/etl/trigger`);
    assert.equal(trigger.status, 503, trigger.text);
    assert.equal(trigger.headers.get('retry-after'), '5');
    assert.match(trigger.text, /the state store is not open yet/);
    assert.equal((await fetch(`${base}/dags/etl/runs`)).status, 503);
    await daemon.stop();
  },
);

test(
  "a task's statsd block: start and stop datagrams for each attempt and each sensor poke",
  { timeout: 60_000 },
  async (t) => {
    const setup = await useJobState(t);
    const socket = createSocket('udp4');
    t.after(() => socket.close());
    const datagrams: string[] = [];
    socket.on('message', (message) => datagrams.push(message.toString('utf8')));
    await new Promise<void>((resolveBind) => socket.bind(0, '127.0.0.1', resolveBind));
    const statsd = (prefix: string): string =>
      `        statsd:\n          host: 127.0.0.1\n          port: ${socket.address().port}\n          prefix: ${prefix}\n`;
    const pokes = setup.file('pokes');
    const { daemon, base } = await daemonWithDags(
      t,
      setup,
      `  - name: metered
    tasks:
      - id: wait
        type: sensor
        pokeIntervalSeconds: 1
${statsd('metered.wait')}        command: echo poke >> ${pokes}; [ "$(wc -l < ${pokes})" -ge 2 ]
      - id: work
        dependsOn:
          - wait
        retries: 1
${statsd('metered.work')}        command: |
          if [ ! -e ${setup.file('once')} ]; then touch ${setup.file('once')}; exit 3; fi
      - id: quiet
        dependsOn:
          - work
        command: "true"
`,
    );
    const { runKey } = JSON.parse((await postJson(`${base}/dags/metered/trigger`)).text) as {
      runKey: string;
    };
    const run = await waitForRun(base, 'metered', runKey, (doc) => doc.state !== 'running');
    assert.equal(run.state, 'success');
    // Two pokes and two attempts: four starts, four stops (the quiet task has no statsd block).
    const received = await waitUntil(
      () => Promise.resolve(datagrams.length >= 8 ? datagrams : undefined),
      'eight datagrams',
    );
    const shape = (payload: string): string => payload.replace(/duration:\d+\|/, 'duration:N|');
    const stop = (prefix: string, success: 0 | 1): string =>
      `${prefix}.stop:1|g\n${prefix}.success:${success}|g\n${prefix}.duration:N|ms|@0.1\n`;
    assert.deepEqual(received.map(shape), [
      'metered.wait.start:1|g\n',
      stop('metered.wait', 0),
      'metered.wait.start:1|g\n',
      stop('metered.wait', 1),
      'metered.work.start:1|g\n',
      stop('metered.work', 0),
      'metered.work.start:1|g\n',
      stop('metered.work', 1),
    ]);
    await daemon.stop();
    assert.equal(datagrams.length, 8);
  },
);
