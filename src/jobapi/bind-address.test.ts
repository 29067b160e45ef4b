import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import { describe, test } from 'node:test';
import { FakeClock, isYacronError } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import { MemoryStateStore } from '../state/index.js';
import { DEFAULT_MAX_RECORD_BYTES } from '../state/index.js';
import { formatUrl, isLoopbackHost } from './bind-address.js';
import { bodyCapsOf } from './request-body.js';
import { startJobApi } from './index.js';
import { makeSettings } from './job-api-fixture.test.js';

function deps() {
  const clock = new FakeClock();
  return {
    clock,
    logger: silentLogger(),
    host: 'h',
    processToken: '0123456789ab',
    store: new MemoryStateStore({ clock }),
    storeOpened: Promise.resolve(true),
    env: {},
  };
}

void describe('job API bind address (docs/job-state.md "Enabling it")', () => {
  void test('loopback means localhost or a literal loopback IP', () => {
    for (const host of [
      'localhost',
      'LOCALHOST',
      '127.0.0.1',
      '127.1.2.3',
      '::1',
      '[::1]',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
    ]) {
      assert.equal(isLoopbackHost(host), true, host);
    }
    for (const host of [
      '0.0.0.0',
      '::',
      '10.0.0.1',
      '128.0.0.1',
      'example.com',
      'localhost.evil',
      '::ffff:10.0.0.1',
      '',
    ]) {
      assert.equal(isLoopbackHost(host), false, host);
    }
  });

  void test('the URL brackets IPv6 hosts', () => {
    assert.equal(formatUrl('127.0.0.1', 8080), 'http://127.0.0.1:8080');
    assert.equal(formatUrl('::1', 8080), 'http://[::1]:8080');
  });

  void test('each route kind has its own body cap: what its largest legal body needs', () => {
    assert.deepEqual(bodyCapsOf(makeSettings()), {
      json: 65_536,
      'json-value': 6 * 1_048_576 + 65_536,
      upload: 67_108_864 + 65_536,
    });
    const tiny = bodyCapsOf(makeSettings({ maxArtifactBytes: 10, maxValueBytes: 1000 }));
    assert.deepEqual(tiny, { json: 65_536, 'json-value': 6000 + 65_536, upload: 10 + 65_536 });
    assert.equal(bodyCapsOf(makeSettings({ maxArtifactBytes: null })).upload, null);
    // An unlimited value is still bounded by what one store record can hold.
    assert.equal(
      bodyCapsOf(makeSettings({ maxValueBytes: null }))['json-value'],
      6 * DEFAULT_MAX_RECORD_BYTES + 65_536,
    );
  });

  void test('the default bind is 127.0.0.1 on an OS-assigned port', async () => {
    const api = await startJobApi(deps(), makeSettings());
    try {
      assert.match(api.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.notEqual(api.url, 'http://127.0.0.1:0');
    } finally {
      await api.close();
    }
  });

  void test('a non-loopback host is refused without allowNonLoopbackBind', async () => {
    for (const host of ['0.0.0.0', '10.1.2.3', 'example.com']) {
      await assert.rejects(
        startJobApi(deps(), makeSettings({ listen: { host, port: 0 } })),
        (error: unknown) =>
          isYacronError(error, 'YC_ERR_CONFIG_INVALID') &&
          error.message.includes('allowNonLoopbackBind'),
      );
    }
  });

  void test('with allowNonLoopbackBind a wildcard host binds', async () => {
    const api = await startJobApi(
      deps(),
      makeSettings({ listen: { host: '0.0.0.0', port: 0 }, allowNonLoopbackBind: true }),
    );
    try {
      assert.match(api.url, /^http:\/\/0\.0\.0\.0:\d+$/);
    } finally {
      await api.close();
    }
  });

  const hasIpv6Loopback = Object.values(networkInterfaces())
    .flat()
    .some((address) => address?.family === 'IPv6' && address.internal);
  void test(
    'an IPv6 loopback bind gives a bracketed URL',
    { skip: !hasIpv6Loopback && 'no IPv6 loopback here' },
    async () => {
      const api = await startJobApi(deps(), makeSettings({ listen: { host: '::1', port: 0 } }));
      try {
        assert.match(api.url, /^http:\/\/\[::1\]:\d+$/);
      } finally {
        await api.close();
      }
    },
  );

  void test('a port already in use is a clear start failure', async () => {
    const first = await startJobApi(deps(), makeSettings());
    try {
      const port = Number(new URL(first.url).port);
      await assert.rejects(
        startJobApi(deps(), makeSettings({ listen: { host: '127.0.0.1', port } })),
        /Cannot start the job API on http:\/\/127\.0\.0\.1:\d+: EADDRINUSE/,
      );
    } finally {
      await first.close();
    }
  });
});
