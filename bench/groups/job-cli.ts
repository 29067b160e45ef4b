// Group job-cli: wall time of `yacron2 state get KEY` as a process (spawn to exit) against a live
// endpoint, beside a bare `node -e 0` in the same run, interleaved round by round so machine
// noise hits both alike. The endpoint is a stub answering GET /v1/kv/get on 127.0.0.1 in this
// process, so only the client is measured (the job API's own latency is the jobapi group's).
// The measured commands are plain `node` children; this process only waits for them.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { metricLine, unmeasured, type Target } from '../lib/metric.js';
import { median, min, percentile, round, roundAll } from '../lib/stats.js';
import type { BenchGroup } from './group.js';

const ROUNDS = 30;
const TOKEN = 'b'.repeat(64);
const STATE_GET_TARGET: Target = { op: '<=', value: 80 };

/** Serves what the job API would for one stored string value. */
async function startStubEndpoint(): Promise<Server> {
  const server = createServer((request, response) => {
    const ok =
      request.headers.authorization === `Bearer ${TOKEN}` &&
      request.url?.startsWith('/v1/kv/get?') === true;
    response.writeHead(ok ? 200 : 404, { 'content-type': 'application/json; charset=utf-8' });
    response.end(ok ? JSON.stringify({ value: 'v'.repeat(64), updatedAt: 1_780_000_000 }) : '');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

/** Spawn to exit, in ms; rejects with the exit code and stderr on failure. */
function timeCommand(args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    const started = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      if (code === 0) resolve(wallMs);
      else reject(new Error(`exit code ${code}: ${stderr.trim().slice(-300)}`));
    });
  });
}

export const jobCliGroup: BenchGroup = {
  id: 'job-cli',
  summary: '`yacron2 state get KEY` wall time against a live endpoint, and bare node startup',
  metricPrefixes: ['job-cli'],
  async run(context) {
    const server = await startStubEndpoint();
    const { port } = server.address() as AddressInfo;
    const env = {
      ...process.env,
      YACRON2_STATE_URL: `http://127.0.0.1:${port}`,
      YACRON2_STATE_TOKEN: TOKEN,
    };
    const cli = path.join(context.repoRoot, 'bin', 'yacron2.js');
    const nodeMs: number[] = [];
    const getMs: number[] = [];
    const overheadMs: number[] = [];
    let failure: string | null = null;
    try {
      // One warm-up of each, so the first sample does not pay for a cold page cache.
      await timeCommand(['-e', '0'], env);
      await timeCommand([cli, 'state', 'get', 'bench-key'], env);
      for (let round = 0; round < ROUNDS; round++) {
        const bare = await timeCommand(['-e', '0'], env);
        const get = await timeCommand([cli, 'state', 'get', 'bench-key'], env);
        nodeMs.push(bare);
        getMs.push(get);
        overheadMs.push(get - bare);
      }
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    } finally {
      server.close();
    }
    const command = 'node bin/yacron2.js state get bench-key';
    if (failure !== null || getMs.length === 0) {
      const reason = failure ?? 'no samples';
      context.emit(unmeasured('job-cli.state-get', 'ms', STATE_GET_TARGET, reason));
      context.emit(unmeasured('job-cli.state-get.p90', 'ms', null, reason));
      return;
    }
    const spread = { min: round(min(getMs), 1), samples: roundAll(getMs, 1) };
    context.emit(
      metricLine('job-cli.state-get', round(median(getMs), 1), 'ms', STATE_GET_TARGET, {
        statistic: `median of ${getMs.length} runs, spawn to exit`,
        command,
        p90: round(percentile(getMs, 90), 1),
        ...spread,
      }),
    );
    context.emit(
      metricLine('job-cli.state-get.p90', round(percentile(getMs, 90), 1), 'ms', null, {
        statistic: `90th percentile (nearest rank) of ${getMs.length} runs, spawn to exit`,
        command,
      }),
    );
    context.emit(
      metricLine('job-cli.node-startup', round(median(nodeMs), 1), 'ms', null, {
        statistic: `median of ${nodeMs.length} runs of \`node -e 0\`, interleaved with the above`,
        command: 'node -e 0',
        p90: round(percentile(nodeMs, 90), 1),
        min: round(min(nodeMs), 1),
      }),
    );
    context.emit(
      metricLine('job-cli.state-get.over-node', round(median(overheadMs), 1), 'ms', null, {
        statistic: 'median over rounds of (state get) - (node -e 0) in the same round',
        p90: round(percentile(overheadMs, 90), 1),
      }),
    );
  },
};
