// Worker of the dashboard bench group: serves the built page (dist/web/index.html) and a
// synthetic `GET /jobs` of N jobs from a stub HTTP server in this process, opens the page in
// headless Chromium (playwright-core, Debian's /usr/bin/chromium), and reports raw timings:
// time to first render (navigation start → first job row painted), the cost of applying one
// poll (the page's own path, Poller.applyJobs: decoding the body + snapshot + table update +
// style/layout, alternating two job lists that differ in 5 % of the jobs and in every job's
// `scheduled_in`, as the daemon's do) in wall time and in main-thread CPU time, and the cost of
// one filter keystroke.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../lib/chromium.js';
import { intArg, repoRoot, reportSample } from '../lib/worker-io.js';

const jobCount = intArg(0, 'jobs');
const loads = intArg(1, 'loads');
const updates = intArg(2, 'updates');
const warmups = intArg(3, 'warmups');

interface PlaywrightLike {
  readonly chromium: {
    launch(options: Record<string, unknown>): Promise<BrowserLike>;
  };
}
interface CdpLike {
  send(method: string, params?: Record<string, unknown>): Promise<unknown>;
  on(event: string, listener: (params: Record<string, unknown>) => void): void;
}
interface BrowserLike {
  newContext(options: Record<string, unknown>): Promise<{
    newPage(): Promise<PageLike>;
    newCDPSession(page: PageLike): Promise<CdpLike>;
    close(): Promise<void>;
  }>;
  close(): Promise<void>;
}
interface PageLike {
  addInitScript(script: { content: string }): Promise<void>;
  goto(url: string, options?: { waitUntil: 'commit' | 'load' }): Promise<unknown>;
  waitForFunction(
    expression: string,
    arg?: unknown,
    options?: { timeout: number },
  ): Promise<unknown>;
  evaluate<T>(expression: string): Promise<T>;
}

const root = repoRoot();
const playwright = createRequire(path.join(root, 'package.json'))(
  'playwright-core',
) as PlaywrightLike;
const page = readFileSync(path.join(root, 'dist/web/index.html'));

/** A job as `GET /jobs` returns it; `variant` flips the state of every 20th job. */
function job(index: number, variant: number, nowMs: number): Record<string, unknown> {
  const flip = index % 20 === variant % 20;
  const failing = index % 17 === 0 ? !flip : flip && index % 3 === 0;
  const running = index % 50 === 1 || (flip && index % 2 === 0);
  const history = Array.from({ length: 20 }, (_, run) => ({
    outcome: (run + index) % 11 === 0 ? 'failure' : 'success',
    duration: 0.5 + ((run * 7 + index) % 13) * 0.8,
  }));
  const finished = new Date(nowMs - ((index * 37) % 3600) * 1000 - (flip ? variant * 1000 : 0))
    .toISOString()
    .replace('Z', '+00:00');
  return {
    name: `job-${String(index).padStart(5, '0')}-${['backup', 'report', 'sync', 'cleanup', 'etl'][index % 5]}`,
    enabled: index % 41 !== 0,
    schedule: [
      '*/5 * * * *',
      '0 * * * *',
      '30 2 * * *',
      '*/15 9-17 * * mon-fri',
      '0 0 1 * *',
      '*/10 * * * * * *',
    ][index % 6],
    command: `/usr/local/bin/task --id ${index} --mode ${index % 3 === 0 ? 'full' : 'incremental'}`,
    captureStdout: true,
    captureStderr: true,
    utc: index % 7 !== 0,
    timezone: index % 7 === 0 ? 'Europe/Berlin' : 'UTC',
    running,
    pids: running ? [10_000 + index] : [],
    // Like the daemon's: a fresh countdown in every job on every poll.
    scheduled_in: running ? null : ((index * 13) % 3600) + 0.5 - variant * 2.125,
    last_run: {
      outcome: failing ? 'failure' : 'success',
      exit_code: failing ? 2 : 0,
      started_at: finished,
      finished_at: finished,
      duration: 1 + (index % 30),
      fail_reason: failing ? 'failsWhen=nonzeroReturn and retcode=2' : null,
      resources: null,
    },
    history,
    ...(failing && index % 4 === 0
      ? {
          retry: {
            attempt: 1,
            maxAttempts: 3,
            nextRetryAt: new Date(nowMs + 30_000).toISOString(),
            delaySeconds: 30,
          },
        }
      : {}),
  };
}

function jobList(variant: number, nowMs: number): string {
  return JSON.stringify(Array.from({ length: jobCount }, (_, index) => job(index, variant, nowMs)));
}

const nowMs = Date.now();
const bodies = [jobList(0, nowMs), jobList(1, nowMs)];
let served = 0;

const server: Server = createServer((request, response) => {
  const url = request.url ?? '/';
  if (url === '/') {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page);
  } else if (url === '/jobs') {
    // Every poll answers the same list until the page is measured, so the update below is the
    // only change the page sees.
    response.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' }).end(bodies[0]);
    served += 1;
  } else if (url === '/version') {
    response.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' }).end('bench');
  } else if (url === '/job-set-id') {
    response
      .writeHead(200, { 'Content-Type': 'application/json' })
      .end(JSON.stringify({ job_set_id: `v1:${'0'.repeat(64)}`, jobs: jobCount }));
  } else {
    response.writeHead(404).end('404: Not Found');
  }
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const address = server.address();
const base = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;

const browser = await playwright.chromium.launch({
  executablePath: CHROMIUM_PATH,
  headless: true,
  args: [...CHROMIUM_ARGS],
});

// Records when the first job row is in the DOM, and the next frame after it (painted), and
// reports the latter through a CDP binding. Nothing of the harness runs in the page until then:
// Playwright's own page script (what waitForFunction and the first evaluate inject, 35-70 ms of
// parse and run on the page's main thread) used to land between the row and its frame, and was
// measured as the dashboard's.
const FIRST_PAINT_BINDING = '__benchFirstPaint';
const FIRST_ROW_PROBE = `
  new MutationObserver((_, observer) => {
    if (document.querySelector('.tbody .trow') === null) return;
    observer.disconnect();
    requestAnimationFrame(() => requestAnimationFrame(() => {
      window.${FIRST_PAINT_BINDING}(String(performance.now()));
    }));
  }).observe(document, { subtree: true, childList: true });
`;

/** `promise`, or a rejection naming what did not happen within `ms`. */
async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the page did not paint a job row in ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

const firstRenderMs: number[] = [];
const updateMs: number[] = [];
const warmupMs: number[] = [];
const filterMs: number[] = [];
let updateCpuMs: number | null = null;

/** Main-thread CPU time of the page's renderer so far (CDP Performance.getMetrics). */
async function threadTimeMs(cdp: CdpLike): Promise<number> {
  const { metrics } = (await cdp.send('Performance.getMetrics')) as {
    metrics: { name: string; value: number }[];
  };
  return (metrics.find((metric) => metric.name === 'ThreadTime')?.value ?? Number.NaN) * 1000;
}

try {
  for (let load = 0; load < loads; load++) {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const tab = await context.newPage();
    await tab.addInitScript({ content: FIRST_ROW_PROBE });
    const cdp = await context.newCDPSession(tab);
    await cdp.send('Runtime.enable');
    await cdp.send('Runtime.addBinding', { name: FIRST_PAINT_BINDING });
    const painted = new Promise<number>((resolve) =>
      cdp.on('Runtime.bindingCalled', (call) => {
        if (call['name'] === FIRST_PAINT_BINDING) resolve(Number(call['payload']));
      }),
    );
    await tab.goto(`${base}/`, { waitUntil: 'commit' });
    firstRenderMs.push(await withTimeout(painted, 60_000));
    if (load === loads - 1) {
      // Polls are paused (refresh 0) so only the measured updates touch the page. Beside wall
      // time, the renderer main thread's CPU time (CDP Performance ThreadTime) over the whole
      // update loop is taken: it hardly moves when other processes load the machine.
      await cdp.send('Performance.enable');
      await tab.evaluate<void>(`(() => {
        window.__yacron2.ctx.prefs.update({ refreshMs: 0 });
        window.__bodies = ${JSON.stringify(bodies)};
      })()`);
      // The first polls after a load run code V8 has not compiled yet (the decoder's reuse
      // path, the row updates): they are timed apart, as `warmupMs`, and the steady state a page
      // kept open lives in is measured after them.
      const timeUpdates = (count: number, offset: number): Promise<number[]> =>
        tab.evaluate<number[]>(`(async () => {
          const app = window.__yacron2;
          // Pages before the incremental decoder had no Poller.applyJobs: parse whole, as they did.
          const apply = app.ctx.poller.applyJobs
            ? (body) => app.ctx.poller.applyJobs(body, Date.now())
            : (body) => app.ctx.store.setJobs(JSON.parse(body), Date.now());
          const updates = [];
          for (let i = ${offset}; i < ${offset + count}; i++) {
            await new Promise((resolve) => requestAnimationFrame(resolve));
            const start = performance.now();
            apply(window.__bodies[(i + 1) % 2]);
            document.body.offsetHeight;
            updates.push(performance.now() - start);
          }
          return updates;
        })()`);
      warmupMs.push(...(await timeUpdates(warmups, 0)));
      const before = await threadTimeMs(cdp);
      const updateTimes = await timeUpdates(updates, warmups);
      updateCpuMs = ((await threadTimeMs(cdp)) - before) / updateTimes.length;
      updateMs.push(...updateTimes);
      const filters = await tab.evaluate<number[]>(`(async () => {
        const filter = document.querySelector('.filter');
        const filters = [];
        for (const text of ['j', 'jo', 'job-0', 'job-00', 'sync', '', 'etl', '']) {
          await new Promise((resolve) => requestAnimationFrame(resolve));
          const start = performance.now();
          filter.value = text;
          filter.dispatchEvent(new Event('input'));
          document.body.offsetHeight;
          filters.push(performance.now() - start);
        }
        return filters;
      })()`);
      filterMs.push(...filters);
    }
    await context.close();
  }
} finally {
  await browser.close();
  server.close();
}

reportSample({
  jobs: jobCount,
  jobsBodyBytes: Buffer.byteLength(bodies[0]!),
  firstRenderMs,
  updateMs,
  warmupMs,
  filterMs,
  updateCpuMs,
  jobsRequests: served,
});
