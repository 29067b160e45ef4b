// What `yacron2 logs -c` takes from a resolved `web` section: the listener a client on this host
// reaches (wildcards through the loopback, TCP before a unix socket, never port 0), the token or
// its error, and the precedence flags > environment > configuration in resolveTarget.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ResolvedWeb, WebListener } from '../../config/index.js';
import { resolveTarget } from './api-target.js';
import { configTarget, type ConfigTarget } from './config-target.js';

const PATH = '/etc/yacron2.d';

/** A listen URL as the config loader parses it (docs/http-api.md "Listen URLs"). */
function listener(url: string): WebListener {
  const tcp = /^http:\/\/(?:\[([^\]]+)\]|([^:/]+)):(\d+)\/?$/.exec(url);
  if (tcp) return { kind: 'tcp', url, host: tcp[1] ?? tcp[2] ?? '', port: Number(tcp[3]) };
  if (url.startsWith('unix://')) {
    return { kind: 'unix', url, path: decodeURIComponent(url.slice('unix://'.length)) };
  }
  return { kind: 'ignored', url, reason: 'not supported' };
}

function web(listen: readonly string[], overrides: Partial<ResolvedWeb> = {}): ResolvedWeb {
  return {
    listen: listen.map(listener),
    headers: {},
    authToken: null,
    authTokenEnvVar: null,
    error: null,
    socketMode: null,
    allowedHosts: [],
    ui: true,
    metrics: { enabled: true, public: false, durationBuckets: [1] },
    nodeHistory: { enabled: true, intervalMs: 5000, points: 720 },
    digest: 'x',
    ...overrides,
  };
}

const urlOf = (target: ConfigTarget): string =>
  target.url.kind === 'ok' ? target.url.value : `error: ${target.url.message}`;

void test('the first TCP listener, wildcards reached through the loopback of their family', () => {
  const cases: [readonly string[], string][] = [
    [['http://127.0.0.1:8080'], 'http://127.0.0.1:8080'],
    [['http://0.0.0.0:9000'], 'http://127.0.0.1:9000'],
    [['http://[::]:9000'], 'http://[::1]:9000'],
    [['http://[fd00::5]:80'], 'http://[fd00::5]:80'],
    [['http://cron.internal:81/'], 'http://cron.internal:81'],
    [['unix:///run/y.sock', 'http://127.0.0.1:1'], 'http://127.0.0.1:1'],
    [['http://127.0.0.1:0', 'http://127.0.0.1:2'], 'http://127.0.0.1:2'],
    [['ftp://x', 'unix:///run/y%20z.sock'], 'unix:///run/y z.sock'],
  ];
  for (const [listen, url] of cases) assert.equal(urlOf(configTarget(PATH, web(listen))), url);
});

void test('no web section, no listener, only port 0 or ignored listeners: errors naming the field', () => {
  assert.equal(
    urlOf(configTarget(PATH, null)),
    'error: the configuration at /etc/yacron2.d has no web section: the daemon serves no control API (set web.listen, or pass --url)',
  );
  assert.equal(
    urlOf(configTarget(PATH, web([]))),
    'error: web.listen in /etc/yacron2.d is empty: the daemon serves no control API (pass --url)',
  );
  assert.match(
    urlOf(configTarget(PATH, web(['http://127.0.0.1:0']))),
    /^error: web\.listen in \/etc\/yacron2\.d binds port 0 .*: pass --url$/,
  );
  assert.equal(
    urlOf(configTarget(PATH, web(['ftp://x', 'http://h']))),
    'error: web.listen in /etc/yacron2.d has no listener a client can reach (ftp://x, http://h): pass --url',
  );
});

void test('the token as the loader resolved it, or its error', () => {
  assert.deepEqual(configTarget(PATH, web(['http://127.0.0.1:1'])).token, {
    kind: 'ok',
    value: null,
  });
  assert.deepEqual(configTarget(PATH, web(['http://127.0.0.1:1'], { authToken: 's3cret' })).token, {
    kind: 'ok',
    value: 's3cret',
  });
  const broken = configTarget(PATH, web([], { error: 'web.authToken.fromFile could not be read' }));
  assert.deepEqual(broken.token, {
    kind: 'error',
    message: 'web.authToken.fromFile could not be read (in /etc/yacron2.d)',
  });
});

void test('resolveTarget: flags, then the environment, then the configuration, part by part', () => {
  const noFiles = (path: string): string => {
    throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
  };
  const config = configTarget(PATH, web(['http://0.0.0.0:7000'], { authToken: 'cfg-token' }));
  const target = (
    flags: Parameters<typeof resolveTarget>[0],
    env: Record<string, string>,
    from: ConfigTarget = config,
  ) => {
    const result = resolveTarget(flags, env, noFiles, from);
    return result.kind === 'ok'
      ? { url: result.target.url, token: result.target.token, source: result.target.tokenSource }
      : result;
  };
  assert.deepEqual(target({}, {}), {
    url: 'http://127.0.0.1:7000',
    token: 'cfg-token',
    source: 'web.authToken in /etc/yacron2.d',
  });
  assert.deepEqual(target({}, { YACRON2_API_URL: 'http://127.0.0.1:1', YACRON2_API_TOKEN: 'e' }), {
    url: 'http://127.0.0.1:1',
    token: 'e',
    source: 'YACRON2_API_TOKEN',
  });
  assert.deepEqual(
    target({ url: 'http://127.0.0.1:2', token: 'f' }, { YACRON2_API_URL: 'http://127.0.0.1:1' }),
    { url: 'http://127.0.0.1:2', token: 'f', source: '--token' },
  );
  assert.deepEqual(target({}, { YACRON2_API_URL: 'http://127.0.0.1:1' }), {
    url: 'http://127.0.0.1:1',
    token: 'cfg-token',
    source: 'web.authToken in /etc/yacron2.d',
  });
  // A configuration's problem matters only where that part is needed.
  const noListener = configTarget(PATH, web(['http://127.0.0.1:0'], { authToken: 'cfg-token' }));
  assert.deepEqual(target({}, {}, noListener), {
    kind: 'error',
    message:
      'web.listen in /etc/yacron2.d binds port 0 (a port the daemon picks at start, which the configuration does not say): pass --url',
  });
  assert.deepEqual(target({ url: 'http://127.0.0.1:3' }, {}, noListener), {
    url: 'http://127.0.0.1:3',
    token: 'cfg-token',
    source: 'web.authToken in /etc/yacron2.d',
  });
  const badToken = configTarget(PATH, web(['http://127.0.0.1:4'], { error: 'web.authToken bad' }));
  assert.deepEqual(target({}, {}, badToken), {
    kind: 'error',
    message: 'web.authToken bad (in /etc/yacron2.d)',
  });
  assert.deepEqual(target({}, { YACRON2_API_TOKEN: 'e' }, badToken), {
    url: 'http://127.0.0.1:4',
    token: 'e',
    source: 'YACRON2_API_TOKEN',
  });
  // The configuration's token is checked like any other, and never put in a message.
  const spaced = configTarget(PATH, web(['http://127.0.0.1:5'], { authToken: 'two words' }));
  assert.deepEqual(target({}, {}, spaced), {
    kind: 'error',
    message: 'the token from web.authToken in /etc/yacron2.d holds a control character or a space',
  });
});
