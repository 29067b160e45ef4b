import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { FakeClock } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import type { WebhookReport } from '../config/index.js';
import type { RunOutcome } from '../runner/index.js';
import { makeJob } from '../runner/testing.js';
import { ReportError } from './report-error.js';
import { makeOutcome, startHttpSink, SUCCESS } from './report-fixture.test.js';
import { createTemplateRenderer } from './templates.js';
import { sendWebhookReport, type WebhookReportDeps } from './webhook.js';

const templates = createTemplateRenderer();
const job = makeJob({ name: 'backup' });

function webhookReport(url: string | null, overrides: Partial<WebhookReport> = {}): WebhookReport {
  return {
    url: url === null ? null : { value: url, fromFile: null, fromEnvVar: null },
    method: 'POST',
    contentType: 'application/json',
    headers: {},
    body: null,
    timeoutMs: 10_000,
    ...overrides,
  };
}

async function send(
  report: WebhookReport,
  outcome: RunOutcome = makeOutcome(),
  overrides: Partial<WebhookReportDeps> = {},
): Promise<void> {
  const deps: WebhookReportDeps = {
    logger: silentLogger(),
    baseEnv: {},
    clock: new FakeClock(),
    templates,
    ...overrides,
  };
  await sendWebhookReport(deps, { job, outcome, report });
}

void test('the default webhook POSTs {"text": subject + newline + body} as application/json', async () => {
  await using sink = await startHttpSink();
  await send(webhookReport(`${sink.origin}/hooks/T000/B000/token`));
  assert.equal(sink.requests.length, 1);
  const [request] = sink.requests;
  assert.equal(request?.method, 'POST');
  assert.equal(request?.url, '/hooks/T000/B000/token');
  assert.equal(request?.headers['content-type'], 'application/json');
  assert.equal(
    request?.body,
    '{"text": "Cron job \\u0027backup\\u0027 failed\\n\\n(job failed because ' +
      'failsWhen=nonzeroReturn and retcode=1)\\n\\nboom\\n\\n"}',
  );
  assert.equal(request?.headers['content-length'], String(Buffer.byteLength(request.body)));
});

void test('method, content type, extra headers and a custom UTF-8 body are sent as configured', async () => {
  await using sink = await startHttpSink();
  await send(
    webhookReport(`${sink.origin}/notify?x=1`, {
      method: 'PUT',
      contentType: 'text/plain; charset=utf-8',
      headers: { Authorization: 'Bearer {{ not templated }}', 'X-Job': 'backup' },
      body: '{{ name }} {% if success %}ok ✓{% else %}failed{% endif %}',
    }),
    makeOutcome(SUCCESS),
  );
  const [request] = sink.requests;
  assert.equal(request?.method, 'PUT');
  assert.equal(request?.url, '/notify?x=1');
  assert.equal(request?.headers['content-type'], 'text/plain; charset=utf-8');
  assert.equal(request?.headers['authorization'], 'Bearer {{ not templated }}');
  assert.equal(request?.headers['x-job'], 'backup');
  assert.equal(request?.body, 'backup ok ✓');
});

void test('a configured Content-Type header overrides contentType, whatever its case', async () => {
  await using sink = await startHttpSink();
  await send(
    webhookReport(sink.origin, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    }),
  );
  assert.equal(sink.requests[0]?.headers['content-type'], 'application/x-www-form-urlencoded');
});

void test('the method is sent upper-cased, as the reference does', async () => {
  await using sink = await startHttpSink();
  await send(webhookReport(sink.origin, { method: 'patch' }));
  assert.equal(sink.requests[0]?.method, 'PATCH');
});

void test('GET sends no body', async () => {
  await using sink = await startHttpSink();
  await send(webhookReport(`${sink.origin}/ping`, { method: 'GET' }));
  assert.equal(sink.requests[0]?.method, 'GET');
  assert.equal(sink.requests[0]?.body, '');
});

void test('the URL may come from a file or the daemon env; an unset variable skips the report', async () => {
  await using sink = await startHttpSink();
  const report = webhookReport(null, {
    url: { value: null, fromFile: null, fromEnvVar: 'HOOK_URL' },
  });
  await send(report, makeOutcome(), { baseEnv: { HOOK_URL: `${sink.origin}/from-env` } });
  assert.equal(sink.requests[0]?.url, '/from-env');
  await assert.rejects(
    send(report, makeOutcome(), { baseEnv: {} }),
    /^ReportError: Cannot read the webhook URL: environment variable HOOK_URL is not set$/,
  );
  assert.equal(sink.requests.length, 1);
});

void test('no URL, no request', async () => {
  await using sink = await startHttpSink();
  await send(webhookReport(null));
  assert.equal(sink.requests.length, 0);
});

void test('status >= 400 is an error with the status and the first 1024 characters, never the URL', async () => {
  const url = (origin: string): string => `${origin}/hooks/secret-token-123`;
  await using sink = await startHttpSink((request, response) => {
    response.statusCode = 502;
    response.end(`${'é'.repeat(1000)}${request.url}${'z'.repeat(5000)}`);
  });
  await assert.rejects(send(webhookReport(url(sink.origin))), (error: unknown) => {
    assert.ok(error instanceof ReportError);
    assert.equal(error.reporter, 'webhook');
    const prefix = 'Webhook returned HTTP 502: ';
    assert.ok(error.message.startsWith(prefix));
    const excerpt = error.message.slice(prefix.length);
    // The first 1024 characters: 1000 'é', the echoed 23-character path (redacted), one 'z'.
    assert.equal(excerpt, `${'é'.repeat(1000)}<redacted>z`);
    return true;
  });
});

void test('status 399 and below is success', async () => {
  await using sink = await startHttpSink((_request, response) => {
    response.statusCode = 204;
    response.end();
  });
  await send(webhookReport(sink.origin));
  assert.equal(sink.requests.length, 1);
});

void test('a connection error or a malformed URL never puts the URL in the message', async () => {
  await using sink = await startHttpSink();
  const origin = sink.origin;
  await sink[Symbol.asyncDispose]();
  await assert.rejects(
    send(webhookReport(`${origin}/hooks/secret-token-123`)),
    (error: unknown) =>
      error instanceof ReportError &&
      /^Cannot send the webhook: fetch failed: .*ECONNREFUSED/.test(error.message) &&
      !error.message.includes('secret-token-123'),
  );
  await assert.rejects(
    send(webhookReport('not a url secret-token-123')),
    (error: unknown) =>
      error instanceof ReportError &&
      error.message.startsWith('Cannot send the webhook: ') &&
      !error.message.includes('secret-token-123'),
  );
});

void test('a header that cannot be sent is reported by name, never by value', async () => {
  await assert.rejects(
    send(
      webhookReport('http://127.0.0.1:9/', { headers: { Authorization: 'Bearer a\nb-secret' } }),
    ),
    (error: unknown) =>
      error instanceof ReportError &&
      error.message === 'Cannot send the webhook: header Authorization is not valid',
  );
});

void test('the request is aborted when the configured timeout passes on the clock', async () => {
  await using sink = await startHttpSink(() => undefined);
  const clock = new FakeClock();
  const arrived = sink.nextRequest();
  const sending = send(webhookReport(sink.origin, { timeoutMs: 2500 }), makeOutcome(), { clock });
  const rejected = assert.rejects(
    sending,
    /^ReportError: Cannot send the webhook: timed out after 2\.5 seconds$/,
  );
  await arrived;
  await clock.advance(2500);
  await rejected;
});

void test('a redirect is not followed: the configured headers never reach another server', async () => {
  await using elsewhere = await startHttpSink();
  await using sink = await startHttpSink((_request, response) => {
    response.writeHead(307, { location: `${elsewhere.origin}/collect` });
    response.end();
  });
  await assert.rejects(
    send(webhookReport(`${sink.origin}/hook`, { headers: { 'X-Api-Key': 'k3y-in-a-header' } })),
    {
      name: 'ReportError',
      message:
        'Webhook answered HTTP 307 with a redirect, which is not followed (its custom headers may carry credentials): point url at the final address',
    },
  );
  assert.equal(sink.requests.length, 1);
  assert.deepEqual(elsewhere.requests, []);
});
