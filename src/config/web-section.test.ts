// The `web` section (docs/configuration.md "web", docs/http-api.md "The web section"): defaults,
// every key, listen URL forms, the bearer token's sources and fail-closed resolution, and the
// located load-time errors.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { expectConfigError, loadTree } from './config-fixture.test.js';
import { parseListenUrl } from './web-section.js';

/** A config with a `web` section whose body lines are given (indented under `web:`). */
function withWeb(body: string): string {
  const lines = body
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => `  ${line}`);
  return `jobs:\nweb:\n${lines.join('\n')}\n`;
}

async function webError(body: string): Promise<string> {
  return expectConfigError({ 'jobs.yaml': withWeb(body) });
}

void test('a web section with only listen gets every default', async () => {
  const { config } = await loadTree({
    'jobs.yaml': withWeb('listen:\n  - http://127.0.0.1:8080'),
  });
  const web = config.web;
  assert.ok(web);
  const { digest, ...rest } = web;
  assert.match(digest, /^[0-9a-f]{64}$/);
  assert.deepEqual(rest, {
    listen: [{ kind: 'tcp', url: 'http://127.0.0.1:8080', host: '127.0.0.1', port: 8080 }],
    headers: {},
    authToken: null,
    authTokenEnvVar: null,
    error: null,
    socketMode: null,
    allowedHosts: [],
    ui: true,
    metrics: {
      enabled: true,
      public: false,
      durationBuckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600],
    },
    nodeHistory: { enabled: true, intervalMs: 5000, points: 720 },
  });
  assert.ok(Object.isFrozen(web));
  assert.ok(Object.isFrozen(web.listen));
});

void test('no web section resolves to null', async () => {
  const { config } = await loadTree({ 'jobs.yaml': 'jobs:\n' });
  assert.equal(config.web, null);
});

void test('every web key is read', async () => {
  const { config } = await loadTree({
    'jobs.yaml': withWeb(
      [
        'listen:',
        '  - http://0.0.0.0:9000',
        '  - unix:///run/yacron2/api.sock',
        'headers:',
        '  X-Frame-Options: SAMEORIGIN',
        '  Access-Control-Allow-Origin: "*"',
        'authToken:',
        '  value: s3cret',
        'socketMode: "0660"',
        'ui: no',
        'metrics:',
        '  public: yes',
        '  durationBuckets:',
        '    - 0.5',
        '    - 2',
        '    - 10',
        'nodeHistory:',
        '  interval: 2.5',
        '  points: 100',
      ].join('\n'),
    ),
  });
  const web = config.web!;
  assert.deepEqual(web.listen, [
    { kind: 'tcp', url: 'http://0.0.0.0:9000', host: '0.0.0.0', port: 9000 },
    { kind: 'unix', url: 'unix:///run/yacron2/api.sock', path: '/run/yacron2/api.sock' },
  ]);
  assert.deepEqual(web.headers, {
    'X-Frame-Options': 'SAMEORIGIN',
    'Access-Control-Allow-Origin': '*',
  });
  assert.equal(web.authToken, 's3cret');
  assert.equal(web.error, null);
  assert.equal(web.socketMode, '0660');
  assert.equal(web.ui, false);
  assert.deepEqual(web.metrics, { enabled: true, public: true, durationBuckets: [0.5, 2, 10] });
  assert.deepEqual(web.nodeHistory, { enabled: true, intervalMs: 2500, points: 100 });
});

void test('metrics and nodeHistory accept a plain boolean', async () => {
  const { config } = await loadTree({
    'jobs.yaml': withWeb('listen:\n  - http://127.0.0.1:1\nmetrics: false\nnodeHistory: off'),
  });
  assert.equal(config.web?.metrics.enabled, false);
  assert.equal(config.web?.nodeHistory.enabled, false);
});

void test('listen URLs: tcp with host and port, unix with an absolute path, anything else skipped', () => {
  assert.deepEqual(parseListenUrl('http://[::1]:8080'), {
    kind: 'tcp',
    url: 'http://[::1]:8080',
    host: '::1',
    port: 8080,
  });
  assert.deepEqual(parseListenUrl('http://localhost:0/'), {
    kind: 'tcp',
    url: 'http://localhost:0/',
    host: 'localhost',
    port: 0,
  });
  assert.deepEqual(parseListenUrl('http://localhost'), {
    kind: 'ignored',
    url: 'http://localhost',
    reason: 'http url needs host and port',
  });
  assert.deepEqual(parseListenUrl('http://:8080'), {
    kind: 'ignored',
    url: 'http://:8080',
    reason: 'http url needs host and port',
  });
  assert.deepEqual(parseListenUrl('https://127.0.0.1:8443'), {
    kind: 'ignored',
    url: 'https://127.0.0.1:8443',
    reason: "scheme 'https' not supported",
  });
  assert.deepEqual(parseListenUrl('unix:///tmp/a%20b.sock'), {
    kind: 'unix',
    url: 'unix:///tmp/a%20b.sock',
    path: '/tmp/a b.sock',
  });
  assert.equal(parseListenUrl('unix://relative.sock').kind, 'ignored');
  assert.equal(parseListenUrl('127.0.0.1:8080').kind, 'ignored');
});

void test('the token comes from value, then the stripped file, then the env var', async () => {
  const files = {
    'token.txt': '  from-file\n',
    'empty.txt': ' \n',
  };
  const env = { YC_TOKEN: 'from-env' };
  const tokenOf = async (source: string): Promise<string | null> => {
    const { config } = await loadTree(
      { ...files, 'jobs.yaml': withWeb(`listen:\n  - http://127.0.0.1:1\nauthToken:\n${source}`) },
      'jobs.yaml',
      { env },
    );
    return config.web?.authToken ?? null;
  };
  assert.equal(await tokenOf('  value: v\n  fromFile: token.txt\n  fromEnvVar: YC_TOKEN'), 'v');
  assert.equal(
    await tokenOf('  value:\n  fromFile: token.txt\n  fromEnvVar: YC_TOKEN'),
    'from-file',
  );
  assert.equal(await tokenOf('  fromFile: empty.txt\n  fromEnvVar: YC_TOKEN'), 'from-env');
  assert.equal(await tokenOf('  fromEnvVar: YC_TOKEN'), 'from-env');
});

void test('a token that resolves empty is a web error, not a load failure (fail closed)', async () => {
  for (const source of [
    '    fromEnvVar: UNSET_VARIABLE',
    '    value:',
    '    fromFile: empty.txt',
    '',
  ]) {
    const { config } = await loadTree(
      {
        'empty.txt': '\n',
        'jobs.yaml': `jobs:\n  - name: a\n    command: "true"\n    schedule: "* * * * *"\nweb:\n  listen:\n    - http://127.0.0.1:1\n  authToken:\n${source}\n`,
      },
      'jobs.yaml',
      { env: {} },
    );
    assert.equal(config.jobs.length, 1, 'the jobs still load');
    assert.equal(config.web?.authToken, null);
    assert.match(
      config.web?.error ?? '',
      /^web\.authToken is configured but resolved to an empty token; /,
      `source ${JSON.stringify(source)}`,
    );
  }
});

void test('an unreadable token file is a web error naming the problem', async () => {
  const { dir, config } = await loadTree({
    'jobs.yaml': withWeb('listen:\n  - http://127.0.0.1:1\nauthToken:\n  fromFile: missing.txt'),
  });
  assert.match(config.web?.error ?? '', /^web\.authToken\.fromFile could not be read: /);
  assert.ok(config.sourceFiles.includes(path.join(dir, 'missing.txt')));
});

void test('the digest changes with any field, the resolved token included', async () => {
  const digestOf = async (body: string, env: NodeJS.ProcessEnv = {}): Promise<string> =>
    (await loadTree({ 'jobs.yaml': withWeb(body) }, 'jobs.yaml', { env })).config.web!.digest;
  const base = 'listen:\n  - http://127.0.0.1:1\nauthToken:\n  fromEnvVar: T';
  const a = await digestOf(base, { T: 'one' });
  assert.equal(await digestOf(base, { T: 'one' }), a);
  assert.notEqual(await digestOf(base, { T: 'two' }), a);
  assert.notEqual(await digestOf(`${base}\nui: false`, { T: 'one' }), a);
});

void test('bad web blocks are refused with located errors', async () => {
  assert.equal(
    await webError('ui: true'),
    "Cannot load jobs.yaml at web (line 2): missing required key 'listen'",
  );
  assert.equal(
    await webError('listen:\n  - http://127.0.0.1:1\nport: 8080'),
    "Cannot load jobs.yaml at web.port (line 5): unknown key 'port'",
  );
  assert.equal(
    await webError(
      'listen:\n  - http://127.0.0.1:1\nmetrics:\n  durationBuckets:\n    - 1\n    - 0.5',
    ),
    'Cannot load jobs.yaml at web.metrics.durationBuckets (line 6): web.metrics.durationBuckets must be finite, positive and strictly increasing (got [1, 0.5])',
  );
  assert.match(
    await webError('listen:\n  - http://127.0.0.1:1\nmetrics:\n  durationBuckets:\n    - -1'),
    /durationBuckets must be finite, positive and strictly increasing \(got \[-1\]\)/,
  );
  assert.match(
    await webError('listen:\n  - http://127.0.0.1:1\nmetrics:\n  durationBuckets:\n    - inf'),
    /durationBuckets must be finite/,
  );
  assert.equal(
    await webError('listen:\n  - http://127.0.0.1:1\nnodeHistory:\n  interval: 0.5'),
    'Cannot load jobs.yaml at web.nodeHistory.interval (line 6): web.nodeHistory.interval must be a finite number >= 1 (got 0.5)',
  );
  assert.equal(
    await webError('listen:\n  - http://127.0.0.1:1\nnodeHistory:\n  points: 9'),
    'Cannot load jobs.yaml at web.nodeHistory.points (line 6): web.nodeHistory.points must be between 10 and 50000 (got 9)',
  );
  assert.match(
    await webError('listen:\n  - http://127.0.0.1:1\nnodeHistory:\n  points: 50001'),
    /points must be between 10 and 50000 \(got 50001\)/,
  );
  assert.equal(
    await webError('listen:\n  - http://127.0.0.1:1\nheaders:\n  "Bad Name": x'),
    `Cannot load jobs.yaml at web.headers["Bad Name"] (line 6): 'Bad Name' is not a valid HTTP header name`,
  );
  assert.match(
    await webError('listen:\n  - http://127.0.0.1:1\nmetrics: sometimes'),
    /web\.metrics \(line 5\): expected a boolean/,
  );
  assert.match(await webError(''), /'web' must not be empty|web/);
});

void test('two web sections are refused', async () => {
  const message = await expectConfigError({
    'jobs.yaml': 'include:\n  - other.yaml\nweb:\n  listen:\n    - http://127.0.0.1:1\n',
    'other.yaml': 'web:\n  listen:\n    - http://127.0.0.1:2\n',
  });
  assert.match(message, /Multiple 'web' configurations found: first in other\.yaml/);
});

void test('allowedHosts is kept lower-case without a trailing dot; a value that is not a name is refused', async () => {
  const { config } = await loadTree({
    'jobs.yaml': withWeb(
      'listen:\n  - http://0.0.0.0:8080\nallowedHosts:\n  - Cron.Example.COM.\n  - "*"',
    ),
  });
  assert.deepEqual(config.web?.allowedHosts, ['cron.example.com', '*']);
  assert.equal(
    await webError(
      'listen:\n  - http://127.0.0.1:1\nallowedHosts:\n  - cron.example.com\n  - http://evil/',
    ),
    "Cannot load jobs.yaml at web.allowedHosts[1] (line 7): web.allowedHosts: 'http://evil/' is not a host name (write names like cron.example.com, or *)",
  );
});
