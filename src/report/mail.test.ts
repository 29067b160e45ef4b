import { before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createDeferred, FakeClock } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import type { MailReport } from '../config/index.js';
import type { RunOutcome } from '../runner/index.js';
import { makeJob } from '../runner/testing.js';
import { MAIL_TOTAL_TIMEOUT_MS, sendMailReport, type MailReportDeps } from './mail.js';
import { ReportError } from './report-error.js';
import {
  makeMailReport,
  decodeHeader,
  makeOutcome,
  makeSelfSignedCert,
  readMail,
  startSmtpSink,
  SUCCESS,
  type SelfSignedCert,
} from './report-fixture.test.js';
import { createTemplateRenderer } from './templates.js';

let cert: SelfSignedCert;
before(async () => {
  cert = await makeSelfSignedCert();
});

const templates = createTemplateRenderer();
// Thursday 18 June 2026, 12:34:56 UTC.
const clock = new FakeClock(Date.UTC(2026, 5, 18, 12, 34, 56));

function deps(overrides: Partial<MailReportDeps> = {}): MailReportDeps {
  return { logger: silentLogger(), baseEnv: {}, clock, templates, ...overrides };
}

function mailReport(port: number, overrides: Partial<MailReport> = {}): MailReport {
  // Display-name sender and a padded recipient list: the header rules under test.
  return makeMailReport(port, {
    from: 'Cron <cron@example.com>',
    to: '  ops@example.com, dev@example.com ',
    ...overrides,
  });
}

const job = makeJob({ name: 'backup' });

async function send(
  report: MailReport,
  outcome: RunOutcome = makeOutcome(),
  overrides: Partial<MailReportDeps> = {},
): Promise<void> {
  await sendMailReport(deps(overrides), { job, outcome, report });
}

void test('a failure mail reaches a plain SMTP server with From, To, Subject, Date and the default body', async () => {
  await using sink = await startSmtpSink();
  await send(mailReport(sink.port));
  assert.equal(sink.mails.length, 1);
  const [mail] = sink.mails;
  assert.equal(mail?.from, 'cron@example.com');
  assert.deepEqual(mail?.to, ['ops@example.com', 'dev@example.com']);
  assert.equal(mail?.secure, false);
  assert.equal(mail?.user, undefined);
  const { headers, body } = readMail(mail?.raw ?? '');
  assert.equal(headers.get('from'), 'Cron <cron@example.com>');
  assert.equal(headers.get('to'), 'ops@example.com, dev@example.com');
  assert.equal(headers.get('subject'), "Cron job 'backup' failed");
  assert.equal(headers.get('date'), 'Thu, 18 Jun 2026 12:34:56 +0000');
  assert.match(headers.get('content-type') ?? '', /^text\/plain; charset=utf-8$/);
  assert.equal(body, '\n(job failed because failsWhen=nonzeroReturn and retcode=1)\n\nboom\n\n');
});

void test('the subject is rendered and trimmed; html: true sends the body as text/html', async () => {
  await using sink = await startSmtpSink();
  await send(
    mailReport(sink.port, {
      subject: '  [{{ name }}] exit {{ exit_code }} ✓ \n',
      body: '<p>{{ stderr }}</p>',
      html: true,
    }),
  );
  const { headers, body } = readMail(sink.mails[0]?.raw ?? '');
  assert.equal(decodeHeader(headers.get('subject') ?? ''), '[backup] exit 1 ✓');
  assert.match(headers.get('content-type') ?? '', /^text\/html; charset=utf-8$/);
  assert.equal(body.replace(/\n$/, ''), '<p>boom\n</p>');
});

void test('non-ASCII bodies travel with a charset and a transfer encoding', async () => {
  await using sink = await startSmtpSink();
  await send(mailReport(sink.port, { body: 'Grüße — ✓ {{ name }}' }));
  const { headers, body } = readMail(sink.mails[0]?.raw ?? '');
  assert.match(headers.get('content-type') ?? '', /charset=utf-8/);
  assert.match(headers.get('content-transfer-encoding') ?? '', /quoted-printable|base64/);
  // The encoder ends the last line; the text itself arrives intact.
  assert.equal(body.replace(/\n$/, ''), 'Grüße — ✓ backup');
});

void test('STARTTLS upgrades the session (self-signed certificate, validate_certs false)', async () => {
  await using sink = await startSmtpSink({ cert });
  await send(mailReport(sink.port, { starttls: true, validateCerts: false }));
  assert.equal(sink.mails.length, 1);
  assert.equal(sink.mails[0]?.secure, true);
});

void test('without starttls the session stays plain even when the server offers STARTTLS', async () => {
  await using sink = await startSmtpSink({ cert });
  await send(mailReport(sink.port));
  assert.equal(sink.mails[0]?.secure, false);
});

void test('implicit TLS (tls: true) connects over TLS from the first byte', async () => {
  await using sink = await startSmtpSink({ secure: true, cert });
  await send(mailReport(sink.port, { tls: true, validateCerts: false }));
  assert.equal(sink.mails[0]?.secure, true);
});

void test('validate_certs true rejects a self-signed certificate and nothing is sent', async () => {
  await using sink = await startSmtpSink({ cert });
  await assert.rejects(
    send(mailReport(sink.port, { starttls: true, validateCerts: true })),
    (error: unknown) =>
      error instanceof ReportError &&
      error.reporter === 'mail' &&
      /^Cannot send the mail: .*self[- ]signed certificate/.test(error.message),
  );
  assert.equal(sink.mails.length, 0);
});

for (const method of ['PLAIN', 'LOGIN']) {
  void test(`AUTH ${method} logs in with username and the resolved password`, async () => {
    await using sink = await startSmtpSink({
      auth: { user: 'cron', pass: 'pw from env', methods: [method] },
    });
    await send(
      mailReport(sink.port, {
        username: 'cron',
        password: { value: null, fromFile: null, fromEnvVar: 'SMTP_PASSWORD' },
      }),
      makeOutcome(),
      { baseEnv: { SMTP_PASSWORD: 'pw from env' } },
    );
    assert.deepEqual(sink.logins, [`${method} cron`]);
    assert.equal(sink.mails[0]?.user, 'cron');
  });
}

void test('AUTH over STARTTLS', async () => {
  await using sink = await startSmtpSink({
    cert,
    auth: { user: 'cron', pass: 'pw', methods: ['PLAIN'] },
  });
  await send(
    mailReport(sink.port, {
      starttls: true,
      validateCerts: false,
      username: 'cron',
      password: { value: 'pw', fromFile: null, fromEnvVar: null },
    }),
  );
  assert.equal(sink.mails[0]?.secure, true);
  assert.equal(sink.mails[0]?.user, 'cron');
});

void test('a rejected login is a mail error that does not contain the password', async () => {
  await using sink = await startSmtpSink({
    auth: { user: 'cron', pass: 'right', methods: ['PLAIN'] },
  });
  await assert.rejects(
    send(
      mailReport(sink.port, {
        username: 'cron',
        password: { value: 'wrong-secret', fromFile: null, fromEnvVar: null },
      }),
    ),
    (error: unknown) =>
      error instanceof ReportError &&
      error.message.startsWith('Cannot send the mail: ') &&
      !error.message.includes('wrong-secret'),
  );
  assert.equal(sink.mails.length, 0);
});

void test('no login without a username, or without a resolved password', async () => {
  await using sink = await startSmtpSink();
  await send(
    mailReport(sink.port, { password: { value: 'pw', fromFile: null, fromEnvVar: null } }),
  );
  await send(mailReport(sink.port, { username: 'cron' }));
  assert.equal(sink.mails.length, 2);
  assert.deepEqual(sink.logins, []);
});

void test('an unset password variable skips the whole mail with an error naming the variable', async () => {
  await using sink = await startSmtpSink();
  await assert.rejects(
    send(
      mailReport(sink.port, {
        username: 'cron',
        password: { value: null, fromFile: null, fromEnvVar: 'SMTP_PASSWORD' },
      }),
    ),
    /^ReportError: Cannot read the mail password: environment variable SMTP_PASSWORD is not set$/,
  );
  assert.equal(sink.mails.length, 0);
});

void test('no mail unless both from and to are set', async () => {
  await using sink = await startSmtpSink();
  await send(mailReport(sink.port, { from: null }));
  await send(mailReport(sink.port, { to: '' }));
  assert.equal(sink.mails.length, 0);
});

void test('a success report whose body is empty after trimming sends nothing; a failure still mails', async () => {
  await using sink = await startSmtpSink();
  const body = '{% if not success %}failed: {{ fail_reason }}{% endif %}  \n\n';
  await send(mailReport(sink.port, { body }), makeOutcome(SUCCESS));
  assert.equal(sink.mails.length, 0);
  await send(mailReport(sink.port, { body: '  ' }), makeOutcome());
  assert.equal(sink.mails.length, 1);
  // The default success body is never empty.
  await send(mailReport(sink.port), makeOutcome(SUCCESS));
  assert.equal(sink.mails.length, 2);
  assert.equal(
    readMail(sink.mails[1]?.raw ?? '').headers.get('subject'),
    "Cron job 'backup' completed",
  );
});

void test('a server that never greets fails the mail after the timeout and the socket is closed', async () => {
  const sockets: Socket[] = [];
  const server = createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const port = (server.address() as AddressInfo).port;
    await assert.rejects(
      send(mailReport(port), makeOutcome(), { timeoutMs: 100 }),
      /^ReportError: Cannot send the mail: /,
    );
    assert.equal(sockets.length, 1);
    await new Promise((resolve) => sockets[0]?.once('close', resolve));
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});

void test(
  'a server that keeps the exchange going slowly cannot hold a mail past the total bound',
  { timeout: 10_000 },
  async () => {
    const total = new FakeClock();
    const sockets: Socket[] = [];
    const accepted = createDeferred();
    // Greets at once, then never answers EHLO: nodemailer's own per-wait timeout (60 s of real
    // time here) has not run out when the total bound (the injected clock) does. A server that
    // trickles a byte every minute would keep resetting that per-wait timeout for ever.
    const server = createServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => undefined); // the client's destroy may reset the connection
      socket.write('220 slow.example.com ESMTP\r\n');
      accepted.resolve();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const sending = send(mailReport(port), makeOutcome(), { clock: total, timeoutMs: 60_000 });
      await accepted.promise;
      await total.advance(MAIL_TOTAL_TIMEOUT_MS);
      await assert.rejects(sending, {
        name: 'ReportError',
        message: 'Cannot send the mail: no answer within 180.0 seconds',
      });
      await new Promise((resolve) => sockets[0]?.once('close', resolve));
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  },
);
