// The control API's JSON and text routes through inject() (docs/http-api.md "Routes"): bodies,
// content types, status codes and which responses carry the configured headers.
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import type { FakeClock } from '../common/index.js';
import { type Scheduler } from '../scheduler/index.js';
import { makeJob } from '../config/testing.js';
import { createApiFixture, type ApiFixture } from './http-fixture.test.js';
import { loadDashboardPage } from './dashboard-page.js';
import { assertPolicyCoversPage } from './test-page-policy.js';
import { renderJobView } from './job-views.js';
import type { JobView } from './wire/index.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const TEXT_TYPE = 'text/plain; charset=utf-8';
const HEADERS = { 'X-Operator': 'yes' };

/** The reference for GET /jobs: every job's view rendered from scratch, in config order. */
function jobViews(scheduler: Scheduler, clock: FakeClock): JobView[] {
  const nowMs = clock.now();
  return scheduler.getJobStates().map((state) => renderJobView(state, nowMs));
}

async function withApi(
  run: (api: ApiFixture) => Promise<void>,
  jobs = [
    makeJob({ name: 'every-minute', schedule: '* * * * *' }),
    makeJob({ name: 'off', enabled: false }),
    makeJob({ name: 'boot', schedule: '@reboot' }),
  ],
): Promise<void> {
  const api = await createApiFixture(jobs, { web: { headers: HEADERS } });
  try {
    await run(api);
  } finally {
    await api.close();
  }
}

void describe('GET /version and /job-set-id', () => {
  void it('answers the version as text without a trailing newline, with web.headers', () =>
    withApi(async ({ app }) => {
      const response = await app.inject({ method: 'GET', url: '/version' });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], TEXT_TYPE);
      assert.equal(response.headers['x-operator'], 'yes');
      assert.equal(response.body, '1.2.3');
    }));

  void it('answers the job-set id as text, and as JSON only for Accept exactly application/json', () =>
    withApi(async ({ app }) => {
      const text = await app.inject({ method: 'GET', url: '/job-set-id' });
      assert.equal(text.headers['content-type'], TEXT_TYPE);
      assert.match(text.body, /^v1:[0-9a-f]{64}$/);
      const json = await app.inject({
        method: 'GET',
        url: '/job-set-id',
        headers: { accept: 'application/json' },
      });
      assert.equal(json.headers['content-type'], JSON_TYPE);
      assert.deepEqual(json.json(), { job_set_id: text.body, jobs: 3 });
      for (const accept of ['application/json, text/plain', '*/*', 'Application/JSON']) {
        const other = await app.inject({ method: 'GET', url: '/job-set-id', headers: { accept } });
        assert.equal(other.body, text.body, accept);
      }
    }));

  void it('answers HEAD like GET without a body', () =>
    withApi(async ({ app }) => {
      const response = await app.inject({ method: 'HEAD', url: '/version' });
      assert.equal(response.statusCode, 200);
      assert.equal(response.body, '');
    }));
});

void describe('GET /status', () => {
  void it('lists every job in config order as text', () =>
    withApi(async ({ app, clock }) => {
      const response = await app.inject({ method: 'GET', url: '/status' });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], TEXT_TYPE);
      assert.equal(response.headers['x-operator'], 'yes');
      assert.equal(
        response.body,
        'every-minute: scheduled (in 60 seconds)\noff: disabled\nboot: running (pid: 1000)',
      );
      await clock.advance(59_500);
      const soon = await app.inject({ method: 'GET', url: '/status' });
      assert.match(soon.body, /^every-minute: scheduled \(in 0 second\)$/m);
    }));

  void it('answers JSON only for Accept exactly application/json', () =>
    withApi(async ({ app }) => {
      const response = await app.inject({
        method: 'GET',
        url: '/status',
        headers: { accept: 'application/json' },
      });
      assert.equal(response.headers['content-type'], JSON_TYPE);
      assert.deepEqual(response.json(), [
        { job: 'every-minute', status: 'scheduled', scheduled_in: 60 },
        { job: 'off', status: 'disabled' },
        { job: 'boot', status: 'running', pid: [1000] },
      ]);
      const ranged = await app.inject({
        method: 'GET',
        url: '/status',
        headers: { accept: 'application/json;q=1' },
      });
      assert.equal(ranged.headers['content-type'], TEXT_TYPE);
    }));

  void it('says @reboot for an idle @reboot job', () =>
    withApi(async ({ app, runner }) => {
      runner.last('boot').succeed();
      await Promise.resolve();
      const response = await app.inject({ method: 'GET', url: '/status' });
      assert.match(response.body, /^boot: scheduled \(@reboot\)$/m);
    }));
});

void describe('GET /jobs and /jobs/{name}', () => {
  void it('serves exactly the scheduler job views, kept fresh across runs and time', () =>
    withApi(async ({ app, clock, runner, scheduler }) => {
      const check = async (): Promise<void> => {
        const response = await app.inject({ method: 'GET', url: '/jobs' });
        assert.equal(response.statusCode, 200);
        assert.equal(response.headers['content-type'], JSON_TYPE);
        assert.equal(response.headers['x-operator'], 'yes');
        assert.equal(response.body, JSON.stringify(jobViews(scheduler, clock)));
      };
      await check();
      await clock.advance(1_000);
      await check();
      await clock.advance(59_000); // every-minute starts
      await check();
      runner.last('every-minute').fail(2);
      runner.last('boot').succeed();
      await clock.advance(0);
      await check();
      await clock.advance(30_500);
      await check();
      const jobs = JSON.parse((await app.inject({ method: 'GET', url: '/jobs' })).body) as {
        name: string;
        last_run: { outcome: string } | null;
        scheduled_in: number | null;
      }[];
      assert.deepEqual(
        jobs.map((job) => [job.name, job.last_run?.outcome ?? null, job.scheduled_in]),
        [
          ['every-minute', 'failure', 29.5],
          ['off', null, null],
          ['boot', 'success', null],
        ],
      );
    }));

  void it('follows a reload that adds, removes and reorders jobs', () =>
    withApi(async ({ app, clock, scheduler }) => {
      await app.inject({ method: 'GET', url: '/jobs' });
      const { makeConfig } = await import('../config/testing.js');
      scheduler.applyConfig(
        makeConfig([
          makeJob({ name: 'new', schedule: '*/5 * * * *' }),
          makeJob({ name: 'every-minute', schedule: '* * * * *' }),
        ]),
      );
      const response = await app.inject({ method: 'GET', url: '/jobs' });
      assert.equal(response.body, JSON.stringify(jobViews(scheduler, clock)));
      assert.deepEqual(
        response.json<{ name: string }[]>().map((job) => job.name),
        ['new', 'every-minute'],
      );
    }));

  void it('serves one job, and a bare 404 without web.headers for an unknown one', () =>
    withApi(async ({ app, clock, scheduler }) => {
      const one = await app.inject({ method: 'GET', url: '/jobs/every-minute' });
      assert.equal(one.statusCode, 200);
      assert.deepEqual(
        one.json(),
        JSON.parse(
          JSON.stringify(renderJobView(scheduler.getJobState('every-minute'), clock.now())),
        ),
      );
      const missing = await app.inject({ method: 'GET', url: '/jobs/nope' });
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.body, '404: Not Found');
      assert.equal(missing.headers['content-type'], TEXT_TYPE);
      assert.equal(missing.headers['x-operator'], undefined);
    }));

  void it('decodes percent-encoded job names', () =>
    withApi(
      async ({ app }) => {
        const response = await app.inject({ method: 'GET', url: '/jobs/a%2Fb%20c' });
        assert.equal(response.statusCode, 200);
        assert.equal(response.json<{ name: string }>().name, 'a/b c');
      },
      [makeJob({ name: 'a/b c' })],
    ));
});

void describe('GET /jobs/{name}/runs', () => {
  void it('lists runs oldest first with stats, and 404s an unknown job', () =>
    withApi(async ({ app, clock, runner }) => {
      await clock.advance(60_000);
      runner.last('every-minute').succeed();
      await clock.advance(60_000);
      runner.last('every-minute').fail(3);
      await clock.advance(0);
      const response = await app.inject({ method: 'GET', url: '/jobs/every-minute/runs' });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['x-operator'], 'yes');
      const body = response.json<{
        name: string;
        runs: { outcome: string; exit_code: number }[];
        stats: { total: number; success_rate: number };
      }>();
      assert.equal(body.name, 'every-minute');
      assert.deepEqual(
        body.runs.map((run) => [run.outcome, run.exit_code]),
        [
          ['success', 0],
          ['failure', 3],
        ],
      );
      assert.equal(body.stats.total, 2);
      assert.equal(body.stats.success_rate, 0.5);
      const missing = await app.inject({ method: 'GET', url: '/jobs/nope/runs' });
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.body, '404: Not Found');
    }));
});

void describe('POST /jobs/{name}/start and /cancel', () => {
  void it('starts a job: 200 with an empty body and web.headers', () =>
    withApi(async ({ app, runner }) => {
      const response = await app.inject({ method: 'POST', url: '/jobs/every-minute/start' });
      assert.equal(response.statusCode, 200);
      assert.equal(response.body, '');
      assert.equal(response.headers['x-operator'], 'yes');
      assert.equal(runner.runsOf('every-minute').length, 1);
    }));

  void it('refuses a disabled job with 409 and the reference text, an unknown one with 404', () =>
    withApi(async ({ app }) => {
      const disabled = await app.inject({ method: 'POST', url: '/jobs/off/start' });
      assert.equal(disabled.statusCode, 409);
      assert.equal(disabled.body, "job 'off' is disabled");
      assert.equal(disabled.headers['content-type'], TEXT_TYPE);
      assert.equal(disabled.headers['x-operator'], 'yes');
      const unknown = await app.inject({ method: 'POST', url: '/jobs/nope/start' });
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.body, '404: Not Found');
      assert.equal(unknown.headers['x-operator'], undefined);
    }));

  void it('quotes names like Python repr in the 409 text', () =>
    withApi(
      async ({ app }) => {
        const response = await app.inject({
          method: 'POST',
          url: `/jobs/${encodeURIComponent("it's")}/cancel`,
        });
        assert.equal(response.statusCode, 409);
        assert.equal(response.body, `job "it's" is not running`);
      },
      [makeJob({ name: "it's" })],
    ));

  void it('ignores request bodies of any type', () =>
    withApi(async ({ app }) => {
      const response = await app.inject({
        method: 'POST',
        url: '/jobs/every-minute/start',
        headers: { 'content-type': 'application/json' },
        payload: '{not json',
      });
      assert.equal(response.statusCode, 200);
    }));

  void it('cancels a running job (recorded as cancelled), 409 when nothing runs, 404 unknown', () =>
    withApi(async ({ app, scheduler }) => {
      const idle = await app.inject({ method: 'POST', url: '/jobs/every-minute/cancel' });
      assert.equal(idle.statusCode, 409);
      assert.equal(idle.body, "job 'every-minute' is not running");
      assert.equal(idle.headers['x-operator'], 'yes');
      const cancel = await app.inject({ method: 'POST', url: '/jobs/boot/cancel' });
      assert.equal(cancel.statusCode, 200);
      assert.equal(cancel.body, '');
      assert.equal(cancel.headers['x-operator'], 'yes');
      assert.deepEqual(
        scheduler.getRuns('boot').map((run) => [run.outcome, run.failReason]),
        [['cancelled', 'cancelled via web UI']],
      );
      const unknown = await app.inject({ method: 'POST', url: '/jobs/nope/cancel' });
      assert.equal(unknown.statusCode, 404);
    }));

  void it('answers 503 once the daemon is shutting down', () =>
    withApi(async ({ app, scheduler }) => {
      void scheduler.shutdown(60_000);
      const response = await app.inject({ method: 'POST', url: '/jobs/every-minute/start' });
      assert.equal(response.statusCode, 503);
      assert.equal(response.json<{ error: string }>().error, 'Service Unavailable');
    }));
});

void describe('GET /cluster, /fleet, /metrics and /', () => {
  void it('reports no cluster', () =>
    withApi(async ({ app }) => {
      const cluster = await app.inject({ method: 'GET', url: '/cluster' });
      assert.equal(cluster.body, '{"enabled":false,"peers":[]}');
      assert.equal(cluster.headers['x-operator'], 'yes');
      const fleet = await app.inject({ method: 'GET', url: '/fleet' });
      assert.deepEqual(fleet.json(), { enabled: false, nodes: [] });
    }));

  void it('appends the cluster keys last to every job object, fresh on each render', async () => {
    let owner = 'node-b';
    const api = await createApiFixture(
      [
        makeJob({ name: 'lead', schedule: '*/5 * * * *' }),
        makeJob({ name: 'every', schedule: '@reboot', clusterPolicy: 'EveryNode' }),
        makeJob({ name: 'plain', schedule: '*/5 * * * *' }),
      ],
      {
        cluster: {
          status: () => null,
          fleet: () => null,
          nodeStats: () => null,
          jobFields: (job) =>
            job.name === 'plain'
              ? null
              : job.clusterPolicy === 'EveryNode'
                ? { clusterPolicy: 'EveryNode' }
                : { clusterPolicy: job.clusterPolicy, clusterOwner: owner },
        },
      },
    );
    try {
      const first = await api.app.inject({ method: 'GET', url: '/jobs' });
      const jobs = first.json<Record<string, unknown>[]>();
      assert.deepEqual(Object.keys(jobs[0]!).slice(-3), [
        'history',
        'clusterPolicy',
        'clusterOwner',
      ]);
      assert.deepEqual(
        jobs.map((job) => [job.clusterPolicy, job.clusterOwner]),
        [
          ['Leader', 'node-b'],
          ['EveryNode', undefined],
          [undefined, undefined],
        ],
      );
      owner = 'nöde-ç';
      await api.clock.advance(1);
      const second = await api.app.inject({ method: 'GET', url: '/jobs' });
      assert.equal(second.json<Record<string, unknown>[]>()[0]!.clusterOwner, 'nöde-ç');
      const one = await api.app.inject({ method: 'GET', url: '/jobs/lead' });
      assert.equal(one.json<Record<string, unknown>>().clusterOwner, 'nöde-ç');
      const status = await api.app.inject({ method: 'GET', url: '/cluster' });
      assert.equal(status.body, '{"enabled":false,"peers":[]}', 'no running manager');
    } finally {
      await api.close();
    }
  });

  void it("puts a cluster-scope job's concurrencyScope and slot before its election keys", async () => {
    let slot = { held: false, holder: null as string | null, refs: 0 };
    const api = await createApiFixture(
      [makeJob({ name: 'slotted', schedule: '*/5 * * * *', concurrencyScope: 'cluster' })],
      {
        cluster: {
          status: () => null,
          fleet: () => null,
          nodeStats: () => null,
          jobFields: () => ({ concurrencyScope: 'cluster', slot, clusterPolicy: 'Leader' }),
        },
      },
    );
    try {
      const first = await api.app.inject({ method: 'GET', url: '/jobs' });
      const [job] = first.json<Record<string, unknown>[]>();
      assert.deepEqual(Object.keys(job!).slice(-4), [
        'history',
        'concurrencyScope',
        'slot',
        'clusterPolicy',
      ]);
      assert.deepEqual(job!.slot, { held: false, holder: null, refs: 0 });
      slot = { held: true, holder: 'host-a#0123456789ab', refs: 1 };
      await api.clock.advance(1);
      const one = await api.app.inject({ method: 'GET', url: '/jobs/slotted' });
      assert.deepEqual(one.json<Record<string, unknown>>().slot, slot);
    } finally {
      await api.close();
    }
  });

  void it('delegates /metrics with the Accept header; web.headers minus any content-type', async () => {
    const api = await createApiFixture([], {
      web: { headers: { 'content-TYPE': 'text/html', 'X-Operator': 'yes' } },
    });
    try {
      const text = await api.app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(text.statusCode, 200);
      assert.equal(text.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
      assert.equal(text.headers['x-operator'], 'yes');
      assert.equal(text.body, '# accept (none)\n');
      const open = await api.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { accept: 'application/openmetrics-text; version=1.0.0' },
      });
      assert.equal(
        open.headers['content-type'],
        'application/openmetrics-text; version=1.0.0; charset=utf-8',
      );
    } finally {
      await api.close();
    }
  });

  void it('does not serve /metrics when metrics are disabled', async () => {
    const api = await createApiFixture([], {
      web: { metrics: { enabled: false, public: false, durationBuckets: [1] } },
    });
    try {
      const response = await api.app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(response.statusCode, 404);
    } finally {
      await api.close();
    }
  });

  void it('serves the dashboard page with the security defaults, operator headers winning', async () => {
    const api = await createApiFixture([], {
      web: { headers: { 'x-frame-options': 'SAMEORIGIN', 'X-Extra': '1' } },
    });
    try {
      const page = await api.app.inject({ method: 'GET', url: '/' });
      assert.equal(page.statusCode, 200);
      assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
      // The built bundle (dist/web/index.html), or the placeholder in an unbuilt checkout, under
      // the policy built for its bytes.
      const served = loadDashboardPage();
      assert.equal(page.body, served.html);
      assert.equal(page.headers['content-security-policy'], served.contentSecurityPolicy);
      assertPolicyCoversPage(page.body, String(page.headers['content-security-policy']));
      assert.equal(page.headers['x-content-type-options'], 'nosniff');
      assert.equal(page.headers['referrer-policy'], 'no-referrer');
      assert.equal(page.headers['x-frame-options'], 'SAMEORIGIN');
      assert.equal(page.headers['x-extra'], '1');
    } finally {
      await api.close();
    }
  });

  void it('has no page at / with ui off', async () => {
    const api = await createApiFixture([], { web: { ui: false } });
    try {
      const response = await api.app.inject({ method: 'GET', url: '/' });
      assert.equal(response.statusCode, 404);
    } finally {
      await api.close();
    }
  });
});

void describe('methods, unknown paths and errors', () => {
  void it('answers 405 with Allow for a known path and a wrong method, as JSON', () =>
    withApi(async ({ app }) => {
      const get = await app.inject({ method: 'GET', url: '/jobs/every-minute/start' });
      assert.equal(get.statusCode, 405);
      assert.equal(get.headers.allow, 'POST');
      assert.equal(get.headers['content-type'], JSON_TYPE);
      assert.deepEqual(get.json(), {
        error: 'Method Not Allowed',
        message: 'GET is not allowed on /jobs/every-minute/start',
      });
      const del = await app.inject({ method: 'DELETE', url: '/jobs' });
      assert.equal(del.statusCode, 405);
      assert.equal(del.headers.allow, 'GET, HEAD');
      const put = await app.inject({ method: 'PUT', url: '/status?x=1' });
      assert.equal(put.statusCode, 405);
    }));

  void it('answers a bare 404 for unknown paths', () =>
    withApi(async ({ app }) => {
      for (const url of ['/nope', '/jobs/a/b/c', '/state', '/JOBS']) {
        const response = await app.inject({ method: 'GET', url });
        assert.equal(response.statusCode, 404, url);
        assert.equal(response.body, '404: Not Found');
      }
    }));

  void it('answers 400 for an undecodable path and 413 for a body over the limit', () =>
    withApi(async ({ app }) => {
      const bad = await app.inject({ method: 'GET', url: '/jobs/%FF/runs' });
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.body, '400: Bad Request');
      const big = await app.inject({
        method: 'POST',
        url: '/jobs/every-minute/start',
        headers: { 'content-type': 'text/plain' },
        payload: 'x'.repeat(65 * 1024),
      });
      assert.equal(big.statusCode, 413);
      assert.equal(big.json<{ error: string }>().error, 'Payload Too Large');
    }));

  void it('answers 500 without details when a view throws', () =>
    withApi(async ({ app, scheduler }) => {
      const original = scheduler.getRuns.bind(scheduler);
      scheduler.getRuns = () => {
        throw new Error('secret internals');
      };
      try {
        const response = await app.inject({ method: 'GET', url: '/jobs/every-minute/runs' });
        assert.equal(response.statusCode, 500);
        assert.deepEqual(response.json(), {
          error: 'Internal Server Error',
          message: 'the request could not be handled',
        });
        assert.doesNotMatch(response.body, /secret|at /);
      } finally {
        scheduler.getRuns = original;
      }
    }));
});
