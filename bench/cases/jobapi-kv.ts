// Worker: the job API's KV round trip over real HTTP (argv: storeDir, round trips, warm-up).
// One sample = POST /v1/kv/set then GET /v1/kv/get of the same key, sequential on one keep-alive
// connection, as a job's `yacron2 state set` / `state get` pair would hit the endpoint. Measured
// against the filesystem store as the daemon builds it (metered, unthrottled; documents are
// always fsynced) and, for context, against the memory store (HTTP + API cost alone) and as two
// direct calls on the filesystem store (the store's own floor). Uses the built dist/ and the real
// clock.
import * as path from 'node:path';
import { Agent, request } from 'node:http';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type * as PromClient from 'prom-client';
import type * as CommonModule from '../../src/common/index.js';
import type * as LoggingModule from '../../src/logging/index.js';
import type * as ConfigModule from '../../src/config/index.js';
import type * as JobApiModule from '../../src/jobapi/index.js';
import type * as StateModule from '../../src/state/index.js';
import { intArg, repoRoot, reportSample, stringArg } from '../lib/worker-io.js';

const dist = (relative: string): string =>
  pathToFileURL(path.join(repoRoot(), 'dist', relative)).href;
const common = (await import(dist('common/index.js'))) as typeof CommonModule;
const logging = (await import(dist('logging/index.js'))) as typeof LoggingModule;
const jobapi = (await import(dist('jobapi/index.js'))) as typeof JobApiModule;
const config = (await import(dist('config/index.js'))) as typeof ConfigModule;
const state = (await import(dist('state/index.js'))) as typeof StateModule;
const promClientPath = createRequire(path.join(repoRoot(), 'package.json')).resolve('prom-client');
const { Registry } = (await import(pathToFileURL(promClientPath).href)) as typeof PromClient;

const storeDir = stringArg(0, 'storeDir');
const roundTrips = intArg(1, 'roundTrips');
const warmUp = intArg(2, 'warmUp');

// The job the runs belong to, loaded from a real config (test factories do not ship in dist/).
mkdirSync(storeDir, { recursive: true });
const jobFile = path.join(storeDir, 'bench-etl.yaml');
writeFileSync(
  jobFile,
  'jobs:\n  - name: bench-etl\n    command: "true"\n    schedule: "* * * * *"\n',
);
const benchJob = (await config.loadConfig(jobFile)).jobs[0]!;

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function call(
  url: URL,
  token: string,
  method: 'GET' | 'POST',
  body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { authorization: `Bearer ${token}` };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(body);
    }
    const req = request(url, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Round-trip latencies (ms) against `store`, after `warmUp` untimed ones. */
async function measure(store: StateModule.StateStore): Promise<number[]> {
  const api = await jobapi.startJobApi(
    {
      clock: common.systemClock,
      logger: logging.silentLogger(),
      host: 'bench-host',
      processToken: 'be0123456789',
      store,
      storeOpened: Promise.resolve(true),
      env: {},
      // One run's sequential loop outruns the per-run pacing (1000 requests/s): this case
      // measures the round trip, not the pacing policy (the limiter's bookkeeping stays in).
      limits: { requestsPerSecondPerRun: Number.MAX_SAFE_INTEGER },
    },
    {
      enabled: true,
      listen: null,
      allowNonLoopbackBind: false,
      maxValueBytes: 1_048_576,
      maxArtifactBytes: 67_108_864,
      lockTtlMs: 30_000,
    },
  );
  const environment = api.runEnvironment({
    job: benchJob,
    runId: 'be'.repeat(16),
    trigger: 'schedule',
    attempt: 0,
    scheduledAtMs: null,
  });
  const token = environment?.variables['YACRON2_STATE_TOKEN'] ?? '';
  const setUrl = new URL('/v1/kv/set', api.url);
  const latencies: number[] = [];
  try {
    for (let n = 0; n < warmUp + roundTrips; n++) {
      const key = `cursor-${n % 16}`;
      const started = performance.now();
      const set = await call(setUrl, token, 'POST', JSON.stringify({ key, value: { n, at: 'x' } }));
      const get = await call(new URL(`/v1/kv/get?key=${key}`, api.url), token, 'GET');
      const elapsed = performance.now() - started;
      if (set.status !== 200 || get.status !== 200) {
        throw new Error(`round trip failed: ${set.status} ${set.text} / ${get.status} ${get.text}`);
      }
      if (n >= warmUp) latencies.push(elapsed);
    }
  } finally {
    api.runEnded('be'.repeat(16));
    await api.close();
  }
  return latencies;
}

const { store: fsStore } = state.createStateStore(
  { path: path.join(storeDir, 'fs'), topology: 'single-node' },
  { clock: common.systemClock, logger: logging.silentLogger(), registry: new Registry() },
);
await fsStore.open();
const fsMs = await measure(fsStore);
// The same pair as direct store calls (no HTTP, no API): the floor the store itself sets.
const fsStoreOnlyMs: number[] = [];
for (let n = 0; n < warmUp + roundTrips; n++) {
  const key = `direct-${n % 16}`;
  const started = performance.now();
  await fsStore.updateDocument('kv/bench-etl', key, () => ({
    kind: 'write',
    body: { key, updatedAt: n / 1000, value: { n, at: 'x' } },
    result: null,
  }));
  await fsStore.getDocument('kv/bench-etl', key);
  if (n >= warmUp) fsStoreOnlyMs.push(performance.now() - started);
}
await fsStore.close();

const memoryStore = new state.MemoryStateStore({ clock: common.systemClock });
await memoryStore.open();
const memoryMs = await measure(memoryStore);
await memoryStore.close();

agent.destroy();
reportSample({ kind: 'kv-round-trip', fsMs, fsStoreOnlyMs, memoryMs });
rmSync(storeDir, { recursive: true, force: true });
