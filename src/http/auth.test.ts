// Bearer authentication (docs/http-api.md "Authentication") through inject(): header parsing,
// exemptions by exact path, 401 before 404, and no configured headers on a 401.
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { makeJob } from '../config/testing.js';
import { createAuthPolicy } from './auth.js';
import { createApiFixture, type ApiFixture } from './http-fixture.test.js';
import type { ResolvedWeb } from '../config/index.js';

const TOKEN = 's3cret-token';

async function withAuth(
  web: Partial<ResolvedWeb>,
  run: (api: ApiFixture) => Promise<void>,
): Promise<void> {
  const api = await createApiFixture([makeJob({ name: 'a' })], {
    web: { authToken: TOKEN, headers: { 'X-Operator': 'yes' }, ...web },
  });
  try {
    await run(api);
  } finally {
    await api.close();
  }
}

async function statusOf(
  api: ApiFixture,
  url: string,
  authorization?: string,
  method: 'GET' | 'POST' | 'HEAD' = 'GET',
): Promise<number> {
  const response = await api.app.inject({
    method,
    url,
    headers: authorization === undefined ? {} : { authorization },
  });
  return response.statusCode;
}

void describe('bearer authentication', () => {
  void it('accepts the token with the bearer scheme in any case', () =>
    withAuth({}, async (api) => {
      assert.equal(await statusOf(api, '/status', `Bearer ${TOKEN}`), 200);
      assert.equal(await statusOf(api, '/status', `bearer ${TOKEN}`), 200);
      assert.equal(await statusOf(api, '/status', `BeArEr ${TOKEN}`), 200);
      assert.equal(await statusOf(api, '/jobs/a/start', `Bearer ${TOKEN}`, 'POST'), 200);
    }));

  void it('refuses a missing, malformed, wrong-scheme or wrong token with a bare 401', () =>
    withAuth({}, async (api) => {
      for (const authorization of [
        undefined,
        '',
        TOKEN,
        `Bearer`,
        `Bearer  ${TOKEN}`,
        `Bearer ${TOKEN} `,
        `Basic ${TOKEN}`,
        `Token ${TOKEN}`,
        `Bearer ${TOKEN.slice(0, -1)}`,
        `Bearer ${TOKEN}x`,
        `Bearer ${TOKEN.toUpperCase()}`,
      ]) {
        const response = await api.app.inject({
          method: 'GET',
          url: '/status',
          headers: authorization === undefined ? {} : { authorization },
        });
        assert.equal(response.statusCode, 401, String(authorization));
        assert.equal(response.body, '401: Unauthorized');
        assert.equal(response.headers['x-operator'], undefined);
      }
    }));

  void it('answers 401 before 404 and 405 when the token is missing', () =>
    withAuth({}, async (api) => {
      assert.equal(await statusOf(api, '/no-such-path'), 401);
      assert.equal(await statusOf(api, '/jobs/nope'), 401);
      assert.equal(await statusOf(api, '/jobs/a/start'), 401);
      assert.equal(await statusOf(api, '/jobs/a/start', undefined, 'POST'), 401);
      assert.equal(await statusOf(api, '/no-such-path', `Bearer ${TOKEN}`), 404);
      assert.equal(await statusOf(api, '/jobs/a/start', `Bearer ${TOKEN}`), 405);
    }));

  void it('protects every route, the SSE streams included', () =>
    withAuth({}, async (api) => {
      for (const url of [
        '/version',
        '/job-set-id',
        '/status',
        '/jobs',
        '/jobs/a',
        '/jobs/a/runs',
        '/jobs/a/trends',
        '/jobs/a/logs',
        '/events',
        '/cluster',
        '/fleet',
        '/metrics',
      ]) {
        assert.equal(await statusOf(api, url), 401, url);
      }
      assert.equal(await statusOf(api, '/jobs/a/cancel', undefined, 'POST'), 401);
    }));

  void it('leaves GET / public only while the ui is on', async () => {
    await withAuth({}, async (api) => {
      assert.equal(await statusOf(api, '/'), 200);
      assert.equal(await statusOf(api, '/', undefined, 'HEAD'), 200);
      assert.equal(await statusOf(api, '/?x=1'), 200);
      assert.equal(await statusOf(api, '//'), 401);
      assert.equal(await statusOf(api, '/', undefined, 'POST'), 401);
    });
    await withAuth({ ui: false }, async (api) => {
      assert.equal(await statusOf(api, '/'), 401);
      assert.equal(await statusOf(api, '/', `Bearer ${TOKEN}`), 404);
    });
  });

  void it('leaves /metrics public only with metrics.public', async () => {
    await withAuth({}, async (api) => {
      assert.equal(await statusOf(api, '/metrics'), 401);
      assert.equal(await statusOf(api, '/metrics', `Bearer ${TOKEN}`), 200);
    });
    await withAuth(
      { metrics: { enabled: true, public: true, durationBuckets: [1] } },
      async (api) => {
        assert.equal(await statusOf(api, '/metrics'), 200);
        assert.equal(await statusOf(api, '/metrics?name[]=x'), 200);
        assert.equal(await statusOf(api, '/metrics/'), 401);
        assert.equal(await statusOf(api, '/status'), 401);
      },
    );
  });

  void it('is off without a token: every route is open', async () => {
    const api = await createApiFixture([makeJob({ name: 'a' })]);
    try {
      assert.equal(await statusOf(api, '/status'), 200);
      assert.equal(await statusOf(api, '/status', 'Bearer whatever'), 200);
    } finally {
      await api.close();
    }
  });
});

void describe('createAuthPolicy()', () => {
  void it('compares tokens of any length without throwing', () => {
    const policy = createAuthPolicy({ token: 'abc', uiPublic: false, metricsPublic: false });
    assert.equal(policy.allows('GET', '/x', 'Bearer abc'), true);
    assert.equal(policy.allows('GET', '/x', 'Bearer ab'), false);
    assert.equal(policy.allows('GET', '/x', `Bearer ${'a'.repeat(10_000)}`), false);
    assert.equal(policy.allows('GET', '/x', 'Bearer \u00e9\u0000'), false);
  });
});
