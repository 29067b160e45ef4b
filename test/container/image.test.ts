// The image and the three-node compose demo, for real, with podman (README.md "Containers"):
// the Dockerfile builds against the local Node base; the quickstart runs in it as nobody (a job
// fires, finds yacron2 on PATH, the dashboard and the token-guarded API answer, the HEALTHCHECK
// passes, and a docker-stop-style SIGTERM ends it with status 0 well within 10 s); then
// docker-compose-cluster.yml elects one leader that every node names, and stopping it moves
// leadership. Slow (a cold build is minutes), so it runs only with YACRON2_CONTAINER_TESTS=1 and
// is skipped, saying why, where podman or podman-compose cannot run. Everything it creates
// (containers, the compose project's network and volume, its image tags) is removed at the end.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import { REPO_ROOT, defer, getJson, reservePort, waitUntil } from '../e2e/harness.js';

const RUN = `${process.pid}-${randomBytes(3).toString('hex')}`;
const IMAGE = `localhost/yacron2-test:${RUN}`;
const CERTGEN_IMAGE = `localhost/yacron2-test-certgen:${RUN}`;
const ETCD_IMAGE = `localhost/yacron2-test-etcd:${RUN}`;
const PROJECT = `yacron2test${RUN.replace(/-/g, '')}`;

function sh(
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; cwd?: string } = {},
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(command, args, {
    cwd: options.cwd ?? REPO_ROOT,
    env: options.env ?? process.env,
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? '' };
}

function whyNot(): string | null {
  if (process.env.YACRON2_CONTAINER_TESTS !== '1') {
    return 'container tests run with YACRON2_CONTAINER_TESTS=1 (minutes: an image build and a compose cluster)';
  }
  if (sh('podman', ['info'], { timeoutMs: 30_000 }).status !== 0) {
    return 'podman cannot run here (README.md "Containers" says what it needs)';
  }
  return null;
}
const skip = whyNot();

/** The newest local node:<major>-bookworm-slim, or YACRON2_TEST_NODE_IMAGE. */
function nodeImage(): string {
  const wanted = process.env.YACRON2_TEST_NODE_IMAGE;
  if (wanted) return wanted;
  for (const major of [26, 24, 22, 20]) {
    const name = `node:${major}-bookworm-slim`;
    if (sh('podman', ['image', 'exists', name]).status === 0) return name;
  }
  throw new Error('no node:<major>-bookworm-slim image here; set YACRON2_TEST_NODE_IMAGE');
}

/** Resolves with the first line of the container's log matching `pattern` (podman logs -f). */
function waitForLogLine(container: string, pattern: RegExp, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('podman', ['logs', '-f', container], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let seen = '';
    let done = false;
    const finish = (error: Error | null, line?: string): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      if (error) reject(error);
      else resolve(line!);
    };
    const timer = setTimeout(
      () => finish(new Error(`no log line ${pattern} within ${timeoutMs} ms; got:\n${seen}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer): void => {
      seen = (seen + chunk.toString('utf8')).slice(-64 * 1024);
      const line = seen.split('\n').find((candidate) => pattern.test(candidate));
      if (line !== undefined) finish(null, line);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('close', () => finish(new Error(`podman logs ended before ${pattern}:\n${seen}`)));
  });
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

interface ClusterView {
  readonly leader: string | null;
  readonly is_leader: boolean;
  readonly quorate: boolean;
}

async function clusterView(port: number): Promise<ClusterView | null> {
  try {
    return await getJson<ClusterView>(`http://127.0.0.1:${port}/cluster`);
  } catch {
    return null; // not listening yet, or stopped
  }
}

before(
  () => {
    if (skip !== null) return;
    const base = nodeImage();
    const started = performance.now();
    const built = sh(
      'podman',
      [
        'build',
        '--pull=never',
        '--format',
        'docker',
        '--build-arg',
        `NODE_IMAGE=${base}`,
        '-t',
        IMAGE,
        '.',
      ],
      { timeoutMs: 15 * 60_000 },
    );
    assert.equal(built.status, 0, `podman build failed:\n${built.stdout}\n${built.stderr}`);
    console.log(
      `# image ${IMAGE} built on ${base} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  },
  { timeout: 16 * 60_000 },
);

after(() => {
  if (skip !== null) return;
  sh('podman', ['rmi', '-f', IMAGE, CERTGEN_IMAGE, ETCD_IMAGE]);
});

void test(
  'the image runs the quickstart as nobody: a job fires, the dashboard answers, healthy, SIGTERM exits 0 within the 10 s grace',
  { skip: skip ?? false, timeout: 120_000 },
  async (t) => {
    const inspect = JSON.parse(sh('podman', ['image', 'inspect', IMAGE]).stdout) as {
      Config: { User: string; StopSignal: string; Labels: Record<string, string> };
    }[];
    assert.equal(inspect[0]!.Config.User, '65534:65534');
    assert.equal(inspect[0]!.Config.StopSignal, 'SIGTERM');
    assert.equal(inspect[0]!.Config.Labels['org.opencontainers.image.title'], 'yacron2');

    const token = randomBytes(18).toString('hex');
    const reserved = await reservePort();
    await reserved.release();
    const name = `yacron2-test-quickstart-${RUN}`;
    defer(t, () => sh('podman', ['rm', '-f', name]));
    const run = sh('podman', [
      'run',
      '-d',
      '--name',
      name,
      '-p',
      `127.0.0.1:${reserved.port}:8080`,
      '-e',
      `YACRON2_WEB_TOKEN=${token}`,
      '-e',
      'YACRON2_HEALTH_URL=http://127.0.0.1:8080/version',
      '-v',
      `${join(REPO_ROOT, 'examples/container/quickstart.yaml')}:/etc/yacron2.d/quickstart.yaml:ro`,
      IMAGE,
    ]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      await waitForLogLine(name, /\[whoami stdout\]/, 30_000),
      /jobs run as nobody \(65534\), yacron2 0\.\d+\.\d+ is on PATH/,
    );
    await waitForLogLine(name, /\[hello stdout\] hello from yacron2 in a container/, 30_000);

    const base = `http://127.0.0.1:${reserved.port}`;
    const page = await fetch(`${base}/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<html/i);
    const refused = await fetch(`${base}/status`);
    await refused.arrayBuffer();
    assert.equal(refused.status, 401);
    const status = await fetch(`${base}/status`, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(status.status, 200);
    assert.match(await status.text(), /^hello: /m);
    const health = sh('podman', ['healthcheck', 'run', name]);
    assert.equal(health.status, 0, `healthcheck: ${health.stdout}${health.stderr}`);
    const logs = sh('podman', ['logs', name]);
    assert.doesNotMatch(logs.stdout + logs.stderr, new RegExp(token), 'the token is never logged');

    const stopping = performance.now();
    const stopped = sh('podman', ['stop', '-t', '10', name], { timeoutMs: 30_000 });
    const stopSeconds = (performance.now() - stopping) / 1000;
    assert.equal(stopped.status, 0, stopped.stderr);
    const exit = sh('podman', ['inspect', '--format', '{{.State.ExitCode}}', name]).stdout.trim();
    assert.equal(exit, '0', 'a graceful exit, not the SIGKILL at the end of the 10 s');
    assert.ok(stopSeconds < 10, `stopped in ${stopSeconds.toFixed(1)} s`);
    console.log(`# quickstart container stopped in ${stopSeconds.toFixed(2)} s`);
  },
);

/**
 * A compose project of `file` under a name of its own, with the test's images, taken down (its
 * network and volumes too) when the test ends; `ports` must be free first.
 */
async function composeProject(
  t: TestContext,
  file: string,
  ports: readonly number[],
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<((...args: string[]) => ReturnType<typeof sh>) | null> {
  if (sh('podman-compose', ['version']).status !== 0) {
    t.skip('podman-compose is not installed');
    return null;
  }
  for (const port of ports) {
    assert.ok(await portIsFree(port), `port ${port} is in use: ${file} publishes it`);
  }
  const project = `${PROJECT}${file.replace(/[^a-z]/g, '').slice(0, 12)}`;
  const env = { ...process.env, YACRON2_IMAGE: IMAGE, ...extraEnv };
  const compose = (...args: string[]): ReturnType<typeof sh> =>
    sh('podman-compose', ['-p', project, '-f', file, ...args], { env, timeoutMs: 240_000 });
  defer(t, () => {
    compose('down', '-v');
    sh('podman', ['network', 'rm', '-f', `${project}_default`]);
    const volumes = sh('podman', ['volume', 'ls', '-q', '--filter', `name=${project}_`]);
    for (const volume of volumes.stdout.split('\n').filter(Boolean)) {
      sh('podman', ['volume', 'rm', '-f', volume]);
    }
  });
  return compose;
}

/** Every node on `ports` is quorate and names `leader`; only the first port's node leads. */
async function agreed(leader: string, ports: readonly number[]): Promise<boolean> {
  const views = await Promise.all(ports.map(clusterView));
  return views.every(
    (view, index) =>
      view !== null &&
      view.quorate &&
      view.leader === leader &&
      view.is_leader === (ports[index] === ports[0]),
  );
}

const seconds = (sinceMs: number): string => ((performance.now() - sinceMs) / 1000).toFixed(1);

void test(
  'docker-compose-cluster.yml: three nodes name one leader; stopping it moves leadership',
  { skip: skip ?? false, timeout: 300_000 },
  async (t) => {
    const compose = await composeProject(t, 'docker-compose-cluster.yml', [8080, 8081, 8082], {
      YACRON2_CERTGEN_IMAGE: CERTGEN_IMAGE,
    });
    if (compose === null) return;
    const upStarted = performance.now();
    const up = compose('up', '-d');
    assert.equal(up.status, 0, `${up.stdout}\n${up.stderr}`);
    await waitUntil(() => agreed('yacron-a', [8080, 8081, 8082]), 'yacron-a leads, per all', {
      timeoutMs: 120_000,
      intervalMs: 1000,
    });
    console.log(`# compose up to one agreed leader in ${seconds(upStarted)} s`);

    const stopStarted = performance.now();
    const stop = compose('stop', 'yacron-a');
    assert.equal(stop.status, 0, stop.stderr);
    await waitUntil(() => agreed('yacron-b', [8081, 8082]), 'yacron-b leads, per b and c', {
      timeoutMs: 60_000,
      intervalMs: 500,
    });
    console.log(`# leadership moved to yacron-b ${seconds(stopStarted)} s after the stop began`);
  },
);

void test(
  'examples/etcd/docker-compose.yml: two nodes name one etcd lease holder; stopping it moves the lease',
  { skip: skip ?? false, timeout: 420_000 },
  async (t) => {
    const compose = await composeProject(t, 'examples/etcd/docker-compose.yml', [8080, 8081], {
      YACRON2_ETCD_IMAGE: ETCD_IMAGE,
    });
    if (compose === null) return;
    const upStarted = performance.now();
    const up = compose('up', '-d');
    assert.equal(up.status, 0, `${up.stdout}\n${up.stderr}`);
    // Whoever reaches etcd first holds the key; both must name it.
    const nodes = [
      { name: 'yacron-a', port: 8080 },
      { name: 'yacron-b', port: 8081 },
    ] as const;
    let holder: (typeof nodes)[number] | undefined;
    await waitUntil(
      async () => {
        for (const node of nodes) {
          const other = nodes.find((candidate) => candidate !== node)!;
          if (await agreed(node.name, [node.port, other.port])) holder = node;
        }
        return holder !== undefined;
      },
      'one lease holder, per both nodes',
      { timeoutMs: 180_000, intervalMs: 1000 },
    );
    console.log(`# etcd demo up to one agreed holder (${holder!.name}) in ${seconds(upStarted)} s`);

    const successor = nodes.find((node) => node !== holder)!;
    const stopStarted = performance.now();
    const stop = compose('stop', holder!.name);
    assert.equal(stop.status, 0, stop.stderr);
    await waitUntil(() => agreed(successor.name, [successor.port]), `${successor.name} leads`, {
      timeoutMs: 60_000,
      intervalMs: 500,
    });
    console.log(
      `# the lease moved to ${successor.name} ${seconds(stopStarted)} s after the stop began`,
    );
  },
);
