// Where `yacron2 logs` connects and with which token: the flag, environment and file order, the
// URL forms, and messages that never hold the token.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DEFAULT_API_URL,
  parseApiAddress,
  resolveTarget,
  type TargetResult,
} from './api-target.js';

const noFiles = (path: string): string => {
  throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
};
const files =
  (contents: Record<string, string>) =>
  (path: string): string => {
    const text = contents[path];
    return text === undefined ? noFiles(path) : text;
  };

function ok(result: TargetResult): { url: string; token: string | null; source: string | null } {
  assert.equal(result.kind, 'ok', JSON.stringify(result));
  if (result.kind !== 'ok') throw new Error('unreachable');
  return { url: result.target.url, token: result.target.token, source: result.target.tokenSource };
}

void test('defaults: the quick start URL and no token', () => {
  assert.deepEqual(ok(resolveTarget({}, {}, noFiles)), {
    url: DEFAULT_API_URL,
    token: null,
    source: null,
  });
});

void test('flags win over the environment; empty variables count as unset', () => {
  const env = {
    YACRON2_API_URL: 'http://127.0.0.1:9000',
    YACRON2_API_TOKEN: 'env-token',
    YACRON2_API_TOKEN_FILE: '/t',
  };
  assert.deepEqual(
    ok(resolveTarget({ url: 'unix:///run/y.sock', token: 'flag-token' }, env, noFiles)),
    {
      url: 'unix:///run/y.sock',
      token: 'flag-token',
      source: '--token',
    },
  );
  assert.deepEqual(ok(resolveTarget({ tokenFile: '/f' }, env, files({ '/f': ' file-token\n' }))), {
    url: 'http://127.0.0.1:9000',
    token: 'file-token',
    source: '--token-file /f',
  });
  assert.deepEqual(ok(resolveTarget({}, env, noFiles)).token, 'env-token');
  assert.deepEqual(
    ok(
      resolveTarget(
        {},
        { YACRON2_API_TOKEN: '', YACRON2_API_TOKEN_FILE: '/t' },
        files({ '/t': 'from-file' }),
      ),
    ),
    { url: DEFAULT_API_URL, token: 'from-file', source: 'YACRON2_API_TOKEN_FILE /t' },
  );
  assert.equal(ok(resolveTarget({}, { YACRON2_API_URL: '' }, noFiles)).url, DEFAULT_API_URL);
});

void test('token file problems are errors that name the file, never its content', () => {
  assert.deepEqual(resolveTarget({ tokenFile: '/missing' }, {}, noFiles), {
    kind: 'error',
    message: 'cannot read the token file /missing (--token-file): ENOENT',
  });
  assert.deepEqual(resolveTarget({ tokenFile: '/e' }, {}, files({ '/e': ' \n' })), {
    kind: 'error',
    message: 'the token file /e (--token-file) is empty',
  });
  const bad = resolveTarget({ tokenFile: '/b' }, {}, files({ '/b': 'sec ret' }));
  assert.equal(bad.kind, 'error');
  assert.ok(
    bad.kind === 'error' && !bad.message.includes('sec'),
    'the token is not in the message',
  );
  assert.deepEqual(resolveTarget({ token: '' }, {}, noFiles), {
    kind: 'error',
    message: '--token is empty',
  });
});

void test('URLs: http with a prefix, IPv6, unix sockets; anything else is a usage error', () => {
  const tcp = parseApiAddress('http://[::1]:8080/yacron/');
  assert.ok(tcp.kind === 'ok' && tcp.address.kind === 'tcp');
  assert.deepEqual(parseApiAddress('unix:///run/yacron2.sock'), {
    kind: 'ok',
    address: { kind: 'unix', socketPath: '/run/yacron2.sock' },
  });
  for (const url of [
    'https://127.0.0.1:8080',
    'unix://relative.sock',
    'localhost:8080',
    'http://u:p@h:1',
  ]) {
    assert.equal(parseApiAddress(url).kind, 'invalid', url);
  }
  assert.deepEqual(resolveTarget({}, { YACRON2_API_URL: 'ftp://x' }, noFiles), {
    kind: 'usage',
    message: "YACRON2_API_URL must be an http:// or unix:// URL, got 'ftp://x'",
  });
});
