import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock, readPackageVersion, TaskSet } from '../common/index.js';
import type { ReportBlock, SentryReport, WebhookReport } from '../config/index.js';
import { recordingLogger, type LoggedLine } from '../logging/testing.js';
import { fixture, isProcessAlive, makeJob, NODE } from '../runner/testing.js';
import { dispatchReport, type ReporterDeps } from './dispatch.js';
import type { ReporterName } from './report-error.js';
import { SHELL_REPORT_KILL_GRACE_MS, SHELL_REPORT_TIMEOUT_MS } from './shell.js';
import {
  makeMailReport,
  makeOutcome,
  readMail,
  startHttpSink,
  startSmtpSink,
  SUCCESS,
} from './report-fixture.test.js';
import { createTemplateRenderer } from './templates.js';

const templates = createTemplateRenderer();

function secret(value: string): { value: string; fromFile: null; fromEnvVar: null } {
  return { value, fromFile: null, fromEnvVar: null };
}

function sentry(dsn: string): SentryReport {
  return {
    dsn: secret(dsn),
    fingerprint: ['{{ name }}'],
    level: null,
    extra: {},
    body: null,
    environment: null,
    maxStringLength: 8192,
  };
}

function webhook(url: string, overrides: Partial<WebhookReport> = {}): WebhookReport {
  return {
    url: secret(url),
    method: 'POST',
    contentType: 'application/json',
    headers: {},
    body: null,
    timeoutMs: 10_000,
    ...overrides,
  };
}

async function withTempDir<T>(body: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'yacron2-dispatch-'));
  try {
    return await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function harness(clock = new FakeClock()): {
  deps: ReporterDeps;
  records: readonly LoggedLine[];
  failures: string[];
  tasks: TaskSet;
} {
  const logger = recordingLogger();
  const failures: string[] = [];
  const tasks = new TaskSet((error) => assert.fail(`a reporter task threw: ${String(error)}`));
  const deps: ReporterDeps = {
    logger,
    baseEnv: { PATH: process.env['PATH'], HOSTNAME: 'daemon-host' },
    tasks,
    clock,
    templates,
    onReporterFailed: (reporter: ReporterName, jobName: string) =>
      failures.push(`${reporter} ${jobName}`),
  };
  return { deps, records: logger.lines, failures, tasks };
}

void test('all four reporters of the hook run for one report', async () => {
  await using http = await startHttpSink();
  await using smtp = await startSmtpSink();
  await withTempDir(async (dir) => {
    const file = join(dir, 'env.json');
    const block: ReportBlock = {
      sentry: sentry(`${http.origin.replace('//', '//key@')}/1`),
      mail: makeMailReport(smtp.port),
      shell: {
        command: { kind: 'argv', argv: [NODE, fixture('print-env.js'), '--to', file] },
        shell: '/bin/sh',
      },
      webhook: webhook(`${http.origin}/hook`),
    };
    const { deps, failures, tasks } = harness();
    dispatchReport(deps, 'failure', {
      job: makeJob({ name: 'backup', onFailureReport: block }),
      outcome: makeOutcome(),
    });
    assert.equal(tasks.size, 4);
    await tasks.close();
    assert.deepEqual(http.requests.map((request) => request.url).sort(), [
      '/api/1/envelope/',
      '/hook',
    ]);
    assert.equal(smtp.mails.length, 1);
    const envelope = http.requests.find((request) => request.url === '/api/1/envelope/');
    assert.match(
      String(envelope?.headers['x-sentry-auth']),
      new RegExp(`sentry_client=yacron2/${readPackageVersion().replaceAll('.', '\\.')}$`),
    );
    const env = JSON.parse(await readFile(file, 'utf8')) as Record<string, string>;
    assert.equal(env['YACRON2_JOB_NAME'], 'backup');
    assert.deepEqual(failures, []);
  });
});

void test('a monitored run`s usage reaches every reporter', async () => {
  await using http = await startHttpSink();
  await using smtp = await startSmtpSink();
  await withTempDir(async (dir) => {
    const file = join(dir, 'env.json');
    const template = 'cpu={{ cpu_seconds }} rss={{ max_rss_bytes }}';
    const block: ReportBlock = {
      sentry: { ...sentry(`${http.origin.replace('//', '//key@')}/1`), body: template },
      mail: { ...makeMailReport(smtp.port), body: template },
      shell: {
        command: { kind: 'argv', argv: [NODE, fixture('print-env.js'), '--to', file] },
        shell: '/bin/sh',
      },
      webhook: webhook(`${http.origin}/hook`, { body: template }),
    };
    const { deps, tasks } = harness();
    dispatchReport(deps, 'failure', {
      job: makeJob({ name: 'backup', onFailureReport: block }),
      outcome: makeOutcome(),
      summary: {
        resources: {
          cpuUserSeconds: 1,
          cpuSystemSeconds: 0.25,
          cpuTotalSeconds: 1.25,
          maxRssBytes: 4096,
          samples: 2,
        },
      },
    });
    await tasks.close();
    const hook = http.requests.find((request) => request.url === '/hook');
    assert.equal(hook?.body, 'cpu=1.25 rss=4096');
    assert.ok(
      http.requests.some((request) => request.body.includes('cpu=1.25 rss=4096')),
      'the Sentry event message',
    );
    assert.match(readMail(smtp.mails[0]?.raw ?? '').body, /cpu=1\.25 rss=4096/);
    const env = JSON.parse(await readFile(file, 'utf8')) as Record<string, string>;
    assert.equal(env['YACRON2_CPU_SECONDS'], '1.25');
    assert.equal(env['YACRON2_MAX_RSS_BYTES'], '4096');
  });
});

void test('each hook uses its own block; unconfigured reporters start nothing', async () => {
  await using http = await startHttpSink();
  const job = makeJob({
    name: 'backup',
    onSuccessReport: {
      sentry: null,
      mail: null,
      shell: null,
      webhook: webhook(`${http.origin}/ok`),
    },
    onPermanentFailureReport: {
      sentry: null,
      mail: null,
      shell: null,
      webhook: webhook(`${http.origin}/gave-up`),
    },
  });
  const { deps, tasks } = harness();
  dispatchReport(deps, 'failure', { job, outcome: makeOutcome() });
  assert.equal(tasks.size, 0);
  dispatchReport(deps, 'success', { job, outcome: makeOutcome(SUCCESS) });
  dispatchReport(deps, 'permanent-failure', { job, outcome: makeOutcome() });
  await tasks.close();
  assert.deepEqual(http.requests.map((request) => request.url).sort(), ['/gave-up', '/ok']);

  // A block whose reporters are present but disabled (no DSN, no URL, no from/to, no command).
  const disabled = makeJob({
    onFailureReport: {
      sentry: { ...sentry('x'), dsn: null },
      mail: makeMailReport(25, { from: null }),
      shell: { command: null, shell: '/bin/sh' },
      webhook: { ...webhook('x'), url: null },
    },
  });
  dispatchReport(deps, 'failure', { job: disabled, outcome: makeOutcome() });
  assert.equal(tasks.size, 0);
});

void test('a failing reporter is logged and counted and does not stop the others', async () => {
  await using http = await startHttpSink((request, response) => {
    response.statusCode = request.url === '/broken' ? 500 : 200;
    response.end('nope');
  });
  const { deps, records, failures, tasks } = harness();
  const job = makeJob({
    name: 'backup',
    onFailureReport: {
      sentry: {
        ...sentry('unused'),
        dsn: { value: null, fromFile: null, fromEnvVar: 'UNSET_SENTRY_DSN' },
      },
      mail: makeMailReport(1),
      shell: { command: { kind: 'argv', argv: ['/nonexistent/reporter'] }, shell: '/bin/sh' },
      webhook: webhook(`${http.origin}/broken`),
    },
  });
  dispatchReport(deps, 'failure', { job, outcome: makeOutcome() });
  // A second report of another job with a working webhook, at the same time.
  dispatchReport(deps, 'failure', {
    job: makeJob({
      name: 'other',
      onFailureReport: {
        sentry: null,
        mail: null,
        shell: null,
        webhook: webhook(`${http.origin}/fine`),
      },
    }),
    outcome: makeOutcome(),
  });
  await tasks.close();
  assert.deepEqual(failures.sort(), [
    'mail backup',
    'sentry backup',
    'shell backup',
    'webhook backup',
  ]);
  assert.deepEqual(http.requests.map((request) => request.url).sort(), ['/broken', '/fine']);
  const problems = records
    .filter((record) => record.message.startsWith('Problem reporting job'))
    .map((record) => ({
      level: record.level,
      reporter: record.fields['reporter'],
      msg: record.message,
    }))
    .sort((a, b) => String(a.reporter).localeCompare(String(b.reporter)));
  assert.deepEqual(
    problems.map(({ level, reporter }) => [level, reporter]),
    [
      ['error', 'mail'],
      ['error', 'sentry'],
      ['error', 'webhook'],
    ],
  );
  assert.match(
    problems[0]?.msg ?? '',
    /^Problem reporting job backup failure: Cannot send the mail: .*ECONNREFUSED/,
  );
  assert.equal(
    problems[1]?.msg,
    'Problem reporting job backup failure: Cannot read the Sentry DSN: environment variable UNSET_SENTRY_DSN is not set',
  );
  assert.equal(
    problems[2]?.msg,
    'Problem reporting job backup failure: Webhook returned HTTP 500: nope',
  );
  // The shell reporter logs its own launch error; it is counted but not logged twice.
  assert.equal(records.filter((record) => record.message.includes('shell reporter')).length, 1);
  for (const record of records) assert.ok(!JSON.stringify(record).includes(http.origin));
});

void test('a slow reporter does not hold back the others', async () => {
  let releaseSlow: (() => void) | undefined;
  await using http = await startHttpSink((request, response) => {
    if (request.url === '/slow') releaseSlow = () => response.end('late');
    else response.end('ok');
  });
  const { deps, tasks } = harness();
  const job = makeJob({
    name: 'backup',
    onFailureReport: {
      sentry: sentry(`${http.origin.replace('//', '//key@')}/3`),
      mail: null,
      shell: null,
      webhook: webhook(`${http.origin}/slow`),
    },
  });
  dispatchReport(deps, 'failure', { job, outcome: makeOutcome() });
  assert.equal(tasks.size, 2);
  // The Sentry report finishes while the webhook's response is still held back.
  await new Promise<void>((resolve) => {
    const poll = (): void =>
      tasks.size === 1 && releaseSlow ? resolve() : void setImmediate(poll);
    poll();
  });
  assert.ok(http.requests.some((request) => request.url === '/api/3/envelope/'));
  assert.ok(releaseSlow !== undefined, 'the webhook request is waiting for its response');
  releaseSlow?.();
  await tasks.close();
});

void test('a counter callback that throws is logged, not propagated', async () => {
  await using http = await startHttpSink((_request, response) => {
    response.statusCode = 404;
    response.end();
  });
  const { deps, records, tasks } = harness();
  const throwing: ReporterDeps = {
    ...deps,
    onReporterFailed: () => {
      throw new Error('counter broke');
    },
  };
  dispatchReport(throwing, 'failure', {
    job: makeJob({
      onFailureReport: { sentry: null, mail: null, shell: null, webhook: webhook(http.origin) },
    }),
    outcome: makeOutcome(),
  });
  await tasks.close();
  assert.ok(
    records.some(
      (record) => record.message === 'Cannot count a failed webhook report: counter broke',
    ),
  );
});

void test('without a clock or a template cache the daemon defaults are used', async () => {
  await using http = await startHttpSink();
  const { deps, tasks } = harness();
  const { clock: _clock, templates: _templates, ...bare } = deps;
  dispatchReport(bare, 'failure', {
    job: makeJob({
      name: 'backup',
      onFailureReport: { sentry: null, mail: null, shell: null, webhook: webhook(http.origin) },
    }),
    outcome: makeOutcome(),
  });
  await tasks.close();
  assert.match(http.requests[0]?.body ?? '', /^\{"text": "Cron job \\u0027backup\\u0027 failed/);
});

void test(
  'a hung shell reporter is stopped by the default timeout, its whole process group with it',
  { timeout: 20_000 },
  async () => {
    await withTempDir(async (dir) => {
      // A FIFO: reading it waits (without polling) for the reporter to name its processes.
      const fifo = join(dir, 'tree.fifo');
      execFileSync('mkfifo', [fifo]);
      const { deps, failures, tasks, records } = harness();
      const clock = deps.clock as FakeClock;
      const armed = clock.nextTimer();
      dispatchReport(deps, 'failure', {
        job: makeJob({
          name: 'j',
          onFailureReport: {
            sentry: null,
            mail: null,
            webhook: null,
            // Ignores SIGTERM (so does its `sleep` grandchild): only the SIGKILL ends the tree.
            shell: {
              command: {
                kind: 'argv',
                argv: ['sh', fixture('process-tree.sh'), fifo, 'ignore-term'],
              },
              shell: '/bin/sh',
            },
          },
        }),
        outcome: makeOutcome(),
      });
      const pids = (await readFile(fifo, 'utf8')).trim().split(' ').map(Number);
      try {
        assert.equal(await armed, SHELL_REPORT_TIMEOUT_MS);
        await clock.advance(SHELL_REPORT_TIMEOUT_MS);
        assert.equal(pids.every(isProcessAlive), true, 'SIGTERM is ignored');
        await clock.advance(SHELL_REPORT_KILL_GRACE_MS);
        await tasks.close();
        assert.equal(pids.some(isProcessAlive), false, `${pids.join(' ')} are gone`);
        assert.deepEqual(failures, ['shell j']);
        assert.deepEqual(
          records.filter((record) => record.level === 'error').map((record) => record.message),
          [
            'Shell reporter of job j still running after 300.0 seconds, terminating its process group',
            'Shell reporter of job j did not terminate within 5.0 seconds, killing its process group',
            'Error executing shell reporter of job j with return code -9',
          ],
        );
      } finally {
        for (const pid of pids) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
      }
    });
  },
);
