import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '../../common/index.js';
import { makeJobWire } from '../model/job-fixture.test.js';
import { ApiClient } from './api.js';
import type { FirstJobs, FirstJobsAnswer } from './first-jobs.js';
import { Poller } from './poller.js';
import { AppStore } from './store.js';
import { TokenStore } from './token-store.js';

/** An API client over a fake fetch that answers `/jobs` with `jobs` and records every path. */
function fakeApi(jobs: string): { api: ApiClient; paths: string[] } {
  const paths: string[] = [];
  const fetch = (input: string | URL | Request): Promise<Response> => {
    const path =
      typeof input === 'string' ? input : input instanceof URL ? input.pathname : input.url;
    paths.push(path);
    if (path === '/jobs') return Promise.resolve(new Response(jobs, { status: 200 }));
    return Promise.resolve(new Response('404: Not Found', { status: 404 }));
  };
  const api = new ApiClient({
    tokens: new TokenStore(null),
    onUnauthorized: () => undefined,
    fetch,
  });
  return { api, paths };
}

/** An early request still in flight when the app starts, answering `answer`. */
function pending(answer: FirstJobsAnswer): FirstJobs {
  return { token: null, answer: Promise.resolve(answer), settled: null };
}

const early = JSON.stringify([makeJobWire({ name: 'from-the-early-request' })]);
const polled = JSON.stringify([makeJobWire({ name: 'from-a-poll' })]);

describe('Poller and the early /jobs request', () => {
  it('applies the early answer in its first round without asking again, then polls', async () => {
    const { api, paths } = fakeApi(polled);
    const store = new AppStore();
    const first = pending({ kind: 'body', text: early });
    const poller = new Poller(api, store, new FakeClock(), 0, first);
    await poller.refresh();
    assert.deepEqual(
      store.snapshot?.rows.map((row) => row.name),
      ['from-the-early-request'],
    );
    assert.equal(paths.includes('/jobs'), false);
    await poller.refresh();
    assert.deepEqual(
      store.snapshot?.rows.map((row) => row.name),
      ['from-a-poll'],
    );
    assert.equal(paths.filter((path) => path === '/jobs').length, 1);
  });

  it('applies an early body that is already in before refresh() returns', async () => {
    const { api, paths } = fakeApi(polled);
    const store = new AppStore();
    const body: FirstJobsAnswer = { kind: 'body', text: early };
    const first: FirstJobs = { token: null, answer: Promise.resolve(body), settled: body };
    const poller = new Poller(api, store, new FakeClock(), 0, first);
    const round = poller.refresh();
    assert.deepEqual(
      store.snapshot?.rows.map((row) => row.name),
      ['from-the-early-request'],
    );
    await round;
    assert.equal(paths.includes('/jobs'), false);
  });

  it("asks for the first round's other routes only after the early rows' frame is painted", async () => {
    const { api, paths } = fakeApi(polled);
    const store = new AppStore();
    const body: FirstJobsAnswer = { kind: 'body', text: early };
    const first: FirstJobs = { token: null, answer: Promise.resolve(body), settled: body };
    let painted = (): void => undefined;
    const afterPaint = (): Promise<void> =>
      new Promise<void>((resolve) => {
        painted = resolve;
      });
    const poller = new Poller(api, store, new FakeClock(), 0, first, afterPaint);
    const round = poller.refresh();
    await Promise.resolve();
    assert.deepEqual(paths, [], 'nothing is requested before the frame');
    assert.equal(store.snapshot?.rows.length, 1);
    painted();
    await round;
    assert.deepEqual(paths.sort(), ['/job-set-id', '/node', '/version']);
    // Later rounds do not wait.
    await poller.refresh();
    assert.equal(paths.filter((path) => path === '/jobs').length, 1);
  });

  it('reports a broken early body like a broken poll, and the next round asks', async () => {
    const { api } = fakeApi(polled);
    const store = new AppStore();
    const body: FirstJobsAnswer = { kind: 'body', text: '[{"name":' };
    const first: FirstJobs = { token: null, answer: Promise.resolve(body), settled: body };
    const poller = new Poller(api, store, new FakeClock(), 0, first);
    await poller.refresh();
    assert.equal(store.connection.state, 'error');
    assert.equal(store.snapshot, null);
    await poller.refresh();
    assert.equal(store.connection.state, 'live');
  });

  it('asks itself when the early request got nothing usable (a 401, no answer)', async () => {
    const { api, paths } = fakeApi(polled);
    const store = new AppStore();
    const first = pending({ kind: 'none' });
    const poller = new Poller(api, store, new FakeClock(), 0, first);
    await poller.refresh();
    assert.deepEqual(
      store.snapshot?.rows.map((row) => row.name),
      ['from-a-poll'],
    );
    assert.equal(paths.filter((path) => path === '/jobs').length, 1);
  });
});
