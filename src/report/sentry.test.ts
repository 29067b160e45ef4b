import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { FakeClock } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import type { SentryReport } from '../config/index.js';
import type { RunOutcome } from '../runner/index.js';
import { makeJob } from '../runner/testing.js';
import { ReportError } from './report-error.js';
import {
  makeOutcome,
  startHttpSink,
  SUCCESS,
  type HttpRequestRecord,
} from './report-fixture.test.js';
import {
  parseSentryDsn,
  SENTRY_TIMEOUT_MS,
  sendSentryReport,
  truncateSentryString,
  type SentryReportDeps,
} from './sentry.js';
import { createTemplateRenderer } from './templates.js';

const templates = createTemplateRenderer();
const WALL_MS = Date.UTC(2026, 5, 18, 12, 34, 56, 250);

function sentryReport(dsn: string | null, overrides: Partial<SentryReport> = {}): SentryReport {
  return {
    dsn: dsn === null ? null : { value: dsn, fromFile: null, fromEnvVar: null },
    fingerprint: ['yacron2', '{{ environment.HOSTNAME }}', '{{ name }}'],
    level: null,
    extra: {},
    body: null,
    environment: null,
    maxStringLength: 8192,
    ...overrides,
  };
}

const job = makeJob({
  name: 'backup',
  command: { kind: 'argv', argv: ['run-backup', '--all'] },
  shell: '/bin/bash',
});

async function send(
  report: SentryReport,
  outcome: RunOutcome = makeOutcome(),
  overrides: Partial<SentryReportDeps> = {},
): Promise<void> {
  const deps: SentryReportDeps = {
    logger: silentLogger(),
    baseEnv: { HOSTNAME: 'daemon-host' },
    clock: new FakeClock(WALL_MS),
    templates,
    version: '1.2.3',
    ...overrides,
  };
  await sendSentryReport(deps, { job, outcome, report });
}

interface Envelope {
  readonly header: Record<string, unknown>;
  readonly itemHeader: Record<string, unknown>;
  readonly event: Record<string, unknown>;
  readonly eventLine: string;
}

function readEnvelope(request: HttpRequestRecord): Envelope {
  const lines = request.body.split('\n');
  assert.equal(lines.length, 4, 'header, item header, event, trailing newline');
  assert.equal(lines[3], '');
  const [header, itemHeader, event] = lines
    .slice(0, 3)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { header: header!, itemHeader: itemHeader!, event: event!, eventLine: lines[2]! };
}

void test('a failure becomes one envelope POST to /api/<project>/envelope/ with the auth header', async () => {
  await using sink = await startHttpSink();
  const dsn = `${sink.origin.replace('//', '//publickey@')}/42`;
  await send(sentryReport(dsn));
  assert.equal(sink.requests.length, 1);
  const [request] = sink.requests;
  assert.equal(request?.method, 'POST');
  assert.equal(request?.url, '/api/42/envelope/');
  assert.equal(request?.headers['content-type'], 'application/x-sentry-envelope');
  assert.equal(
    request?.headers['x-sentry-auth'],
    'Sentry sentry_version=7, sentry_key=publickey, sentry_client=yacron2/1.2.3',
  );
  const envelope = readEnvelope(request);
  assert.equal(envelope.header['sent_at'], '2026-06-18T12:34:56.250Z');
  assert.equal(envelope.header['event_id'], envelope.event['event_id']);
  assert.match(String(envelope.event['event_id']), /^[0-9a-f]{32}$/);
  assert.deepEqual(envelope.itemHeader, {
    type: 'event',
    length: Buffer.byteLength(envelope.eventLine),
  });
});

void test('the event carries message, level, fingerprint, extras, timestamp and no environment by default', async () => {
  await using sink = await startHttpSink();
  await send(sentryReport(`${sink.origin.replace('//', '//k@')}/7`));
  const { event } = readEnvelope(sink.requests[0]!);
  assert.equal(
    event['message'],
    "Cron job 'backup' failed\n\n(job failed because failsWhen=nonzeroReturn and retcode=1)\n\nboom\n\n",
  );
  assert.equal(event['level'], 'error');
  // No environment was built for the run: {{ environment.HOSTNAME }} renders empty.
  assert.deepEqual(event['fingerprint'], ['yacron2', '', 'backup']);
  assert.deepEqual(event['extra'], {
    job: 'backup',
    exit_code: 1,
    command: ['run-backup', '--all'],
    shell: '/bin/bash',
    success: false,
  });
  assert.equal(event['timestamp'], WALL_MS / 1000);
  assert.equal(event['platform'], 'node');
  assert.equal(event['server_name'], 'daemon-host');
  assert.deepEqual(event['sdk'], { name: 'yacron2', version: '1.2.3' });
  assert.equal('environment' in event, false);
});

void test('level, environment, extra, body and fingerprint templates come from the config', async () => {
  await using sink = await startHttpSink();
  await send(
    sentryReport(`${sink.origin.replace('//', '//k@')}/7`, {
      level: 'warning',
      environment: 'production',
      extra: { team: 'ops', job: 'overridden', retries: 3, paged: true },
      body: '{{ name }} exited {{ exit_code }}',
      fingerprint: ['{{ name }}-{{ environment.HOSTNAME }}', 'static'],
    }),
    makeOutcome({ ...SUCCESS, environment: { HOSTNAME: 'job-host' } }),
  );
  const { event } = readEnvelope(sink.requests[0]!);
  assert.equal(event['message'], 'backup exited 0');
  assert.equal(event['level'], 'warning');
  assert.equal(event['environment'], 'production');
  assert.deepEqual(event['fingerprint'], ['backup-job-host', 'static']);
  assert.deepEqual(event['extra'], {
    job: 'overridden',
    exit_code: 0,
    command: ['run-backup', '--all'],
    shell: '/bin/bash',
    success: true,
    team: 'ops',
    retries: 3,
    paged: true,
  });
});

void test('strings longer than maxStringLength are cut to limit-3 UTF-8 bytes plus "..."', async () => {
  assert.equal(truncateSentryString('abcdef', 6), 'abcdef');
  assert.equal(truncateSentryString('abcdefg', 6), 'abc...');
  // 'é' is two bytes: never cut in half.
  assert.equal(truncateSentryString('aéé', 4), 'a...');
  await using sink = await startHttpSink();
  await send(
    sentryReport(`${sink.origin.replace('//', '//k@')}/7`, {
      maxStringLength: 10,
      extra: { note: 'x'.repeat(50) },
      fingerprint: ['{{ name }}-{{ name }}'],
    }),
  );
  const { event } = readEnvelope(sink.requests[0]!);
  assert.equal(event['message'], 'Cron jo...');
  assert.deepEqual(event['fingerprint'], ['backup-...']);
  const extra = event['extra'] as Record<string, unknown>;
  assert.equal(extra['note'], 'xxxxxxx...');
  assert.equal(extra['job'], 'backup');
});

void test('the DSN may come from the daemon env; an unset variable skips the report', async () => {
  await using sink = await startHttpSink();
  const report = sentryReport(null, {
    dsn: { value: null, fromFile: null, fromEnvVar: 'SENTRY_DSN' },
  });
  await send(report, makeOutcome(), {
    baseEnv: { SENTRY_DSN: `${sink.origin.replace('//', '//k@')}/9` },
  });
  assert.equal(sink.requests[0]?.url, '/api/9/envelope/');
  await assert.rejects(
    send(report, makeOutcome(), { baseEnv: {} }),
    /Cannot read the Sentry DSN: environment variable SENTRY_DSN is not set/,
  );
  assert.equal(sink.requests.length, 1);
});

void test('no DSN, no request', async () => {
  await using sink = await startHttpSink();
  await send(sentryReport(null));
  assert.equal(sink.requests.length, 0);
});

void test('an error status is a ReportError with the status and an excerpt, never the key', async () => {
  await using sink = await startHttpSink((_request, response) => {
    response.statusCode = 403;
    response.end(`{"detail":"bad key secretkey1"}${'x'.repeat(5000)}`);
  });
  await assert.rejects(
    send(sentryReport(`${sink.origin.replace('//', '//secretkey1@')}/7`)),
    (error: unknown) => {
      assert.ok(error instanceof ReportError);
      assert.equal(error.reporter, 'sentry');
      assert.ok(
        error.message.startsWith(
          'Cannot send the Sentry event: HTTP 403: {"detail":"bad key <redacted>"}xxx',
        ),
      );
      assert.ok(!error.message.includes('secretkey1'));
      assert.ok(error.message.length < 1200);
      return true;
    },
  );
});

void test('a connection error is a ReportError that does not contain the DSN', async () => {
  await using sink = await startHttpSink();
  const origin = sink.origin;
  await sink[Symbol.asyncDispose]();
  await assert.rejects(
    send(sentryReport(`${origin.replace('//', '//topsecret@')}/7`)),
    (error: unknown) =>
      error instanceof ReportError &&
      /^Cannot send the Sentry event: fetch failed: .*ECONNREFUSED/.test(error.message) &&
      !error.message.includes('topsecret'),
  );
});

void test('a Sentry that never answers is given up after 10 seconds of the clock', async () => {
  await using sink = await startHttpSink(() => undefined);
  const clock = new FakeClock(WALL_MS);
  const arrived = sink.nextRequest();
  const sending = send(sentryReport(`${sink.origin.replace('//', '//k@')}/7`), makeOutcome(), {
    clock,
  });
  const outcome = assert.rejects(
    sending,
    /^ReportError: Cannot send the Sentry event: timed out after 10\.0 seconds$/,
  );
  await arrived;
  await clock.advance(SENTRY_TIMEOUT_MS);
  await outcome;
});

void test('parseSentryDsn maps key, optional secret and path prefix to the envelope endpoint', () => {
  assert.deepEqual(parseSentryDsn('https://abc@o1.ingest.sentry.io/123'), {
    envelopeUrl: 'https://o1.ingest.sentry.io/api/123/envelope/',
    publicKey: 'abc',
    secretKey: null,
  });
  assert.deepEqual(parseSentryDsn('http://abc:def@sentry.local:9000/prefix/sub/55'), {
    envelopeUrl: 'http://sentry.local:9000/prefix/sub/api/55/envelope/',
    publicKey: 'abc',
    secretKey: 'def',
  });
  for (const bad of ['not a url secretvalue', 'ftp://k@h/1', 'https://h/1', 'https://k@h/']) {
    assert.throws(
      () => parseSentryDsn(bad),
      (error: unknown) =>
        error instanceof ReportError &&
        error.message.startsWith('Cannot parse the Sentry DSN: ') &&
        !error.message.includes('secretvalue') &&
        !error.message.includes(bad),
    );
  }
});

void test('a redirect is not followed: the X-Sentry-Auth header never reaches another server', async () => {
  await using elsewhere = await startHttpSink();
  await using sink = await startHttpSink((_request, response) => {
    response.writeHead(302, { location: `${elsewhere.origin}/api/7/envelope/` });
    response.end();
  });
  await assert.rejects(send(sentryReport(`${sink.origin.replace('//', '//publickey@')}/7`)), {
    name: 'ReportError',
    message:
      'Cannot send the Sentry event: HTTP 302 is a redirect, which is not followed (the X-Sentry-Auth header carries the key): check the DSN',
  });
  assert.equal(sink.requests.length, 1);
  assert.deepEqual(elsewhere.requests, []);
});
