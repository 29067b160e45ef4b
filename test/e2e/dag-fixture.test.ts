// Test support for the DAG e2e tests (no tests here): the run document as the HTTP API answers
// it, a daemon started with a `dags:` section over the job-state setup, a POST, and a bounded
// wait for a run to reach a state.
import { startDaemon, waitUntil, type TeardownContext } from './harness.js';
import type { JobStateSetup } from './job-fixture.test.js';

/** A monitored attempt's `resources` (a run record's totals). */
export interface TaskResources {
  cpu_user_seconds: number;
  cpu_system_seconds: number;
  cpu_total_seconds: number;
  max_rss_bytes: number;
  samples: number;
  series?: unknown;
}

export interface TaskEntry {
  id: string;
  state: string;
  attempt: number;
  startedAt: number | null;
  finishedAt: number | null;
  pokeCount?: number;
  pid: number | null;
  host: string | null;
  proc: string | null;
  failReason?: string | null;
  approval?: { decision: string; by: string; at: number };
  awaitingApproval?: boolean;
  resources?: TaskResources | null;
}
export interface RunDoc {
  dag: string;
  runKey: string;
  runId: string;
  state: string;
  kind: string;
  tasks: Record<string, TaskEntry>;
  mapped: Record<string, { items: unknown[] }>;
  ended?: { kind: string; by?: string; at: number };
}

export const WEB = 'web:\n  listen:\n    - http://127.0.0.1:0\n';

export async function postJson(
  url: string,
  body?: unknown,
): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await fetch(url, {
    method: 'POST',
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

/** Start a daemon on `config`; resolves once its listener is up and its store is open. */
export async function startDagDaemon(t: TeardownContext, config: string, env: NodeJS.ProcessEnv) {
  const daemon = startDaemon(t, ['-c', config], { env });
  const record = await daemon.waitForLog(/^web: started listening on http:\/\/\S+$/);
  // The store opens in the background after the listener: a trigger before it is a 503.
  await daemon.waitForLog(/^State store ready at /);
  return { daemon, config, base: /http:\/\/\S+$/.exec(record.msg)![0] };
}

export async function daemonWithDags(t: TeardownContext, setup: JobStateSetup, dags: string) {
  const config = await setup.writeJobs(`${WEB}dags:\n${dags}`);
  return startDagDaemon(t, config, setup.env);
}

export async function waitForRun(
  base: string,
  dag: string,
  runKey: string,
  done: (run: RunDoc) => boolean,
  timeoutMs = 40_000,
): Promise<RunDoc> {
  return waitUntil(
    async () => {
      const response = await fetch(`${base}/dags/${dag}/runs/${encodeURIComponent(runKey)}`);
      if (response.status !== 200) return undefined;
      const run = (await response.json()) as RunDoc;
      return done(run) ? run : undefined;
    },
    `run ${runKey} of ${dag}`,
    { timeoutMs, intervalMs: 100 },
  );
}
