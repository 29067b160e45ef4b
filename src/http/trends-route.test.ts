// GET /jobs/{name}/trends through inject() (docs/http-api.md "GET /jobs/{name}/trends"): the
// in-memory fallback, the daemon's durable trends when offered, store trouble answered from memory,
// 404s, headers and auth.
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { formatIsoUtc, YacronError } from '../common/index.js';
import { makeJob } from '../config/testing.js';
import { createApiFixture, type ApiFixture, type ApiFixtureOptions } from './http-fixture.test.js';
import { computeTrends, type TrendRuns } from './trends.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const HEADERS = { 'X-Operator': 'yes' };
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

async function withApi(
  run: (api: ApiFixture) => Promise<void>,
  options: ApiFixtureOptions = {},
): Promise<void> {
  const api = await createApiFixture(
    [makeJob({ name: 'every-minute', schedule: '* * * * *' }), makeJob({ name: 'idle' })],
    { web: { headers: HEADERS }, ...options },
  );
  try {
    await run(api);
  } finally {
    await api.close();
  }
}

interface StatsBody {
  total: number;
  success: number;
  failure: number;
  success_rate: number | null;
  last_duration: number | null;
}
interface TrendsBody {
  name: string;
  source: string;
  generated_at: string;
  windows: Record<string, StatsBody>;
}

/** Two finished runs of every-minute: a success at T0+1min, a failure (exit 3) at T0+2min. */
async function twoRuns({ clock, runner }: ApiFixture): Promise<void> {
  await clock.advance(MINUTE);
  runner.last('every-minute').succeed();
  await clock.advance(MINUTE);
  runner.last('every-minute').fail(3);
  await clock.advance(0);
}

void describe('GET /jobs/{name}/trends without durable state', () => {
  void it('answers the windows over the in-memory history with source "memory"', () =>
    withApi(async (api) => {
      const { app, clock } = api;
      await twoRuns(api);
      const response = await app.inject({ method: 'GET', url: '/jobs/every-minute/trends' });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], JSON_TYPE);
      assert.equal(response.headers['x-operator'], 'yes');
      const body = response.json<TrendsBody>();
      assert.deepEqual(Object.keys(body), ['name', 'source', 'generated_at', 'windows']);
      assert.equal(body.name, 'every-minute');
      assert.equal(body.source, 'memory');
      assert.equal(body.generated_at, formatIsoUtc(clock.now()));
      assert.deepEqual(Object.keys(body.windows), ['1h', '24h', '7d', '30d', 'all']);

      // Every window is the /runs stats object while all runs are recent.
      const runs = await app.inject({ method: 'GET', url: '/jobs/every-minute/runs' });
      const { stats } = runs.json<{ stats: StatsBody }>();
      for (const window of Object.values(body.windows)) assert.deepEqual(window, stats);
      assert.equal(body.windows['1h']?.total, 2);
      assert.equal(body.windows['1h']?.success_rate, 0.5);
    }));

  void it('drops runs out of the short windows as time passes', () =>
    // The fake runner leaves later runs running, so only the two finished ones are recorded.
    withApi(async (api) => {
      const { app, clock, scheduler } = api;
      await twoRuns(api);
      const finishedAtMs = scheduler.getRuns('every-minute').at(-1)?.finishedAtMs;
      await clock.advance(HOUR);
      const later = (
        await app.inject({ method: 'GET', url: '/jobs/every-minute/trends' })
      ).json<TrendsBody>();
      // The failure finished exactly one hour ago (boundary included); the success did not.
      assert.equal(finishedAtMs, clock.now() - HOUR);
      assert.equal(later.windows['1h']?.total, 1);
      assert.equal(later.windows['1h']?.failure, 1);
      assert.equal(later.windows['24h']?.total, 2);
      assert.equal(later.windows.all?.total, 2);
    }));

  void it('answers an idle job with empty windows and 404s an unknown one', () =>
    withApi(async ({ app }) => {
      const idle = (
        await app.inject({ method: 'GET', url: '/jobs/idle/trends' })
      ).json<TrendsBody>();
      assert.equal(idle.windows.all?.total, 0);
      assert.equal(idle.windows.all?.success_rate, null);
      const missing = await app.inject({ method: 'GET', url: '/jobs/nope/trends' });
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.body, '404: Not Found');
      assert.equal(missing.headers['x-operator'], undefined);
      const post = await app.inject({ method: 'POST', url: '/jobs/idle/trends' });
      assert.equal(post.statusCode, 405);
    }));

  void it('needs the bearer token like every data endpoint', () =>
    withApi(
      async ({ app }) => {
        const anonymous = await app.inject({ method: 'GET', url: '/jobs/idle/trends' });
        assert.equal(anonymous.statusCode, 401);
        const unknown = await app.inject({ method: 'GET', url: '/jobs/nope/trends' });
        assert.equal(unknown.statusCode, 401);
        const authorized = await app.inject({
          method: 'GET',
          url: '/jobs/idle/trends',
          headers: { authorization: 'Bearer s3cret' },
        });
        assert.equal(authorized.statusCode, 200);
      },
      { web: { authToken: 's3cret' } },
    ));
});

void describe('GET /jobs/{name}/trends with durable state', () => {
  const durable: TrendRuns = {
    source: 'durable',
    runs: [
      {
        outcome: 'success',
        exitCode: 0,
        startedAtMs: null,
        finishedAtMs: Date.UTC(2025, 11, 31, 23),
        durationMs: 4000,
        failReason: null,
        resources: null,
      },
    ],
  };

  void it("answers the windows over the daemon's durable runs", () => {
    const asked: string[] = [];
    return withApi(
      async ({ app, clock }) => {
        const response = await app.inject({ method: 'GET', url: '/jobs/every-minute/trends' });
        assert.equal(response.statusCode, 200);
        assert.equal(response.headers['x-operator'], 'yes');
        const expected = computeTrends('every-minute', durable.runs, clock.now(), 'durable');
        assert.deepEqual(response.json(), JSON.parse(JSON.stringify(expected)));
        assert.equal(expected.windows.all.total, 1);
        const missing = await app.inject({ method: 'GET', url: '/jobs/nope/trends' });
        assert.equal(missing.statusCode, 404);
        assert.deepEqual(asked, ['every-minute']); // unknown jobs never reach the store
      },
      {
        getTrends: (name) => {
          asked.push(name);
          return Promise.resolve(durable);
        },
      },
    );
  });

  void it('answers from memory when the durable read rejects', () =>
    withApi(
      async (api) => {
        await twoRuns(api);
        const response = await api.app.inject({ method: 'GET', url: '/jobs/every-minute/trends' });
        assert.equal(response.statusCode, 200);
        const body = response.json<TrendsBody>();
        assert.equal(body.source, 'memory');
        assert.equal(body.windows.all?.total, 2);
      },
      { getTrends: () => Promise.reject(new Error('store unmounted')) },
    ));

  void it('answers from memory when the daemon has no durable source right now (undefined)', () =>
    withApi(
      async (api) => {
        await twoRuns(api);
        const response = await api.app.inject({ method: 'GET', url: '/jobs/every-minute/trends' });
        assert.equal(response.statusCode, 200);
        const body = response.json<TrendsBody>();
        assert.equal(body.source, 'memory');
        assert.equal(body.windows.all?.total, 2);
      },
      { getTrends: () => undefined },
    ));

  void it('404s when the daemon says the job is unknown (removed by a reload meanwhile)', () =>
    withApi(
      async ({ app }) => {
        const response = await app.inject({ method: 'GET', url: '/jobs/every-minute/trends' });
        assert.equal(response.statusCode, 404);
        assert.equal(response.body, '404: Not Found');
      },
      {
        getTrends: (name) =>
          Promise.reject(new YacronError('YC_ERR_JOB_UNKNOWN', `Cannot find job ${name}: gone`)),
      },
    ));
});
