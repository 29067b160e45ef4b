// Cross-site requests and DNS rebinding (docs/http-api.md "Who may call it"): an unsafe method
// whose Sec-Fetch-Site or Origin shows another site is refused, and a TCP listener answers only
// for Host names it can be reached by (IP literals, localhost, its own host, web.allowedHosts).
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import type { ResolvedWeb, WebListener } from '../config/index.js';
import { makeJob } from '../config/testing.js';
import { createApiFixture, type ApiFixture } from './http-fixture.test.js';

async function withApi(
  options: { web?: Partial<ResolvedWeb>; listener?: WebListener },
  run: (api: ApiFixture) => Promise<void>,
): Promise<void> {
  const api = await createApiFixture([makeJob({ name: 'a', schedule: '0 0 1 1 *' })], options);
  try {
    await run(api);
  } finally {
    await api.close();
  }
}

function startJob(api: ApiFixture, headers: Record<string, string>) {
  return api.app.inject({ method: 'POST', url: '/jobs/a/start', headers, payload: 'x=1' });
}

void describe('cross-site requests', () => {
  void it('a cross-site text/plain POST cannot start a job (Sec-Fetch-Site: cross-site)', () =>
    withApi({}, async (api) => {
      const response = await startJob(api, {
        host: '127.0.0.1:8080',
        origin: 'http://attacker.example',
        'sec-fetch-site': 'cross-site',
        'content-type': 'text/plain',
      });
      assert.equal(response.statusCode, 403);
      assert.equal(response.body, '403: Forbidden');
      assert.equal(api.runner.runs.length, 0);
    }));

  void it('without Sec-Fetch-Site, an Origin other than the Host (or "null") is refused', () =>
    withApi({}, async (api) => {
      for (const origin of ['http://attacker.example', 'null', 'http://127.0.0.1:9999']) {
        const response = await startJob(api, { host: '127.0.0.1:8080', origin });
        assert.equal(response.statusCode, 403, origin);
      }
      assert.equal(api.runner.runs.length, 0);
    }));

  void it('same-origin and non-browser POSTs go through', () =>
    withApi({}, async (api) => {
      const accepted = [
        { host: '127.0.0.1:8080', origin: 'http://127.0.0.1:8080' },
        { host: '127.0.0.1:8080', origin: 'http://attacker.example', 'sec-fetch-site': 'none' },
        // Behind a proxy that rewrites Host, the browser's own verdict counts.
        { host: '127.0.0.1:8080', origin: 'https://cron.example', 'sec-fetch-site': 'same-origin' },
        { host: '127.0.0.1:8080' }, // curl: no Origin, no Sec-Fetch-Site
      ];
      for (const headers of accepted) {
        assert.equal((await startJob(api, headers)).statusCode, 200, JSON.stringify(headers));
      }
    }));

  void it('safe methods are not checked for their origin (GET, HEAD)', () =>
    withApi({}, async (api) => {
      const response = await api.app.inject({
        method: 'GET',
        url: '/version',
        headers: { host: 'localhost:8080', origin: 'http://attacker.example' },
      });
      assert.equal(response.statusCode, 200);
    }));
});

void describe('DNS rebinding', () => {
  void it('a TCP listener refuses a Host name it is not known by, before authentication', () =>
    withApi({ web: { authToken: 'tok' } }, async (api) => {
      for (const host of ['attacker.example', 'attacker.example:8080', 'rebind.127.0.0.1.nip.io']) {
        const response = await api.app.inject({ method: 'GET', url: '/jobs', headers: { host } });
        assert.equal(response.statusCode, 403, host);
      }
    }));

  void it('IP literals, localhost, the listener host and web.allowedHosts are served', () =>
    withApi(
      {
        web: { allowedHosts: ['cron.example.com'] },
        listener: { kind: 'tcp', url: 'http://cron-box:8080', host: 'cron-box', port: 8080 },
      },
      async (api) => {
        for (const host of [
          '127.0.0.1:8080',
          '10.1.2.3',
          '[::1]:8080',
          'localhost:8080',
          'LOCALHOST',
          'app.localhost',
          'cron-box:8080',
          'Cron.Example.Com.',
          'cron.example.com:443',
        ]) {
          const response = await api.app.inject({
            method: 'GET',
            url: '/version',
            headers: { host },
          });
          assert.equal(response.statusCode, 200, host);
        }
        const other = await api.app.inject({
          method: 'GET',
          url: '/version',
          headers: { host: 'www.example.com' },
        });
        assert.equal(other.statusCode, 403);
      },
    ));

  void it('allowedHosts: ["*"] turns the Host check off; a unix socket has none', async () => {
    await withApi({ web: { allowedHosts: ['*'] } }, async (api) => {
      const response = await api.app.inject({
        method: 'GET',
        url: '/version',
        headers: { host: 'anything.example' },
      });
      assert.equal(response.statusCode, 200);
    });
    await withApi(
      { listener: { kind: 'unix', url: 'unix:///run/y.sock', path: '/run/y.sock' } },
      async (api) => {
        const response = await api.app.inject({
          method: 'GET',
          url: '/version',
          headers: { host: 'anything.example' },
        });
        assert.equal(response.statusCode, 200);
      },
    );
  });
});
