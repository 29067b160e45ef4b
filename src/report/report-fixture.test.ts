// Test support for the reporter tests (no tests of its own; the .test.ts name keeps it out of
// the build): run outcomes, a real SMTP sink (smtp-server), a node:http sink, a self-signed
// certificate made with the openssl CLI, and a raw-mail reader.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import type { MailReport } from '../config/index.js';
import type { RunOutcome } from '../runner/index.js';
import { runOutcome, type LooseOutcome } from '../runner/testing.js';

const run = promisify(execFile);

/** A failed run (`retcode=1`) with stderr `boom\n` and stdout not captured. */
export function makeOutcome(overrides: Partial<LooseOutcome> = {}): RunOutcome {
  return runOutcome({
    kind: 'failed',
    exitCode: 1,
    failReason: 'failsWhen=nonzeroReturn and retcode=1',
    cancelReason: null,
    pid: 1234,
    startedAtMs: 0,
    finishedAtMs: 10,
    durationMs: 10,
    stdout: null,
    stderr: { text: 'boom\n', discardedLines: 0, truncated: false },
    environment: null,
    spawnError: null,
    ...overrides,
  });
}

/** Overrides turning makeOutcome() into a success with both streams captured and empty. */
export const SUCCESS: Partial<LooseOutcome> = {
  kind: 'succeeded',
  exitCode: 0,
  failReason: null,
  stdout: { text: '', discardedLines: 0, truncated: false },
  stderr: { text: '', discardedLines: 0, truncated: false },
};

export interface SelfSignedCert {
  readonly key: Buffer;
  readonly cert: Buffer;
}

/** A throwaway EC certificate for CN=localhost / 127.0.0.1. */
export async function makeSelfSignedCert(): Promise<SelfSignedCert> {
  const dir = await mkdtemp(join(tmpdir(), 'yacron2-cert-'));
  try {
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ]);
    return { key: await readFile(key), cert: await readFile(cert) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface ReceivedMail {
  readonly from: string | false;
  readonly to: readonly string[];
  /** The raw message, CRLF line ends. */
  readonly raw: string;
  /** True when the session was over TLS (implicit or after STARTTLS). */
  readonly secure: boolean;
  /** The authenticated user, or undefined when there was no AUTH. */
  readonly user: string | undefined;
}

export interface SmtpSink extends AsyncDisposable {
  readonly port: number;
  readonly mails: ReceivedMail[];
  /** AUTH attempts as `<method> <user>`. */
  readonly logins: string[];
}

export interface SmtpSinkOptions {
  /** Implicit TLS from the first byte. */
  readonly secure?: boolean;
  /** A certificate to offer (STARTTLS when not secure); none → STARTTLS is not advertised. */
  readonly cert?: SelfSignedCert;
  /** Require AUTH with these credentials, offering only these methods. */
  readonly auth?: { readonly user: string; readonly pass: string; readonly methods: string[] };
}

export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const mails: ReceivedMail[] = [];
  const logins: string[] = [];
  const serverOptions: SMTPServerOptions = {
    secure: options.secure ?? false,
    ...(options.cert ? { key: options.cert.key, cert: options.cert.cert } : {}),
    disabledCommands: [
      ...(options.cert && !options.secure ? [] : ['STARTTLS']),
      ...(options.auth ? [] : ['AUTH']),
    ],
    authOptional: options.auth === undefined,
    allowInsecureAuth: true,
    ...(options.auth ? { authMethods: options.auth.methods } : {}),
    logger: false,
    onAuth(auth, _session, callback) {
      logins.push(`${auth.method} ${auth.username ?? ''}`);
      if (auth.username === options.auth?.user && auth.password === options.auth?.pass) {
        callback(null, { user: auth.username });
      } else {
        callback(new Error('Invalid username or password'));
      }
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom === false ? false : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((address) => address.address),
          raw: Buffer.concat(chunks).toString('utf8'),
          secure: session.secure,
          user: typeof session.user === 'string' ? session.user : undefined,
        });
        callback();
      });
    },
  };
  const server = new SMTPServer(serverOptions);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    mails,
    logins,
    [Symbol.asyncDispose]: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Header values by lower-cased name (unfolded) and the decoded body of a one-part mail. */
export function readMail(raw: string): { headers: Map<string, string>; body: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const headers = new Map<string, string>();
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  const encoded = raw.slice(split + 4);
  const encoding = headers.get('content-transfer-encoding')?.toLowerCase();
  let body: string;
  if (encoding === 'quoted-printable') {
    const bytes = encoded
      .replace(/=\r\n/g, '')
      .replace(/=([0-9A-F]{2})/g, (_match, code: string) => `%${code}`);
    body = decodeURIComponent(bytes.replace(/%(?![0-9A-F]{2})/g, '%25'));
  } else if (encoding === 'base64') {
    body = Buffer.from(encoded, 'base64').toString('utf8');
  } else {
    body = encoded;
  }
  return { headers, body: body.replace(/\r\n/g, '\n') };
}

/** Decode RFC 2047 encoded words (`=?UTF-8?Q?...?=`, `=?UTF-8?B?...?=`) in a header value. */
export function decodeHeader(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?([QB])\?([^?]*)\?=/gi, (_match, kind: string, text: string) => {
      if (kind.toUpperCase() === 'B') return Buffer.from(text, 'base64').toString('utf8');
      const bytes = text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, '%$1');
      return decodeURIComponent(bytes);
    });
}

export interface HttpRequestRecord {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface HttpSink extends AsyncDisposable {
  readonly origin: string;
  readonly requests: HttpRequestRecord[];
  /** Resolves with the next request once it has arrived in full. */
  nextRequest(): Promise<HttpRequestRecord>;
}

/** Answers each request with `respond` (default: 200 `ok`) after recording it. */
export async function startHttpSink(
  respond: (request: HttpRequestRecord, response: ServerResponse) => void = (_, response) =>
    response.end('ok'),
): Promise<HttpSink> {
  const requests: HttpRequestRecord[] = [];
  const waiters: ((request: HttpRequestRecord) => void)[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const record = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(record);
      waiters.shift()?.(record);
      respond(record, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    nextRequest: () => new Promise((resolve) => waiters.push(resolve)),
    [Symbol.asyncDispose]: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A mail block for an SMTP sink on 127.0.0.1:port (plain SMTP, no login, default texts). */
export function makeMailReport(port: number, overrides: Partial<MailReport> = {}): MailReport {
  return {
    from: 'cron@example.com',
    to: 'ops@example.com',
    smtpHost: '127.0.0.1',
    smtpPort: port,
    tls: false,
    starttls: false,
    validateCerts: true,
    username: null,
    password: null,
    subject: null,
    body: null,
    html: false,
    ...overrides,
  };
}
