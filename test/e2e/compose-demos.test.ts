// E2E without containers: the compose demos (docker-compose-cluster.yml, -cluster-large.yml,
// -acme.yml, examples/etcd/docker-compose.yml) hold together. Every file a service mounts exists;
// the dashboards are published on the seed's host ports and on 127.0.0.1 only; every node
// configuration they mount validates with the real CLI against real certificates from
// make-certs.sh (so the TLS files are checked, not skipped); and the large demo's entrypoint
// writes ten distinct, valid node configurations from its environment, or refuses bad input
// naming the variable. test/container/ runs the demos themselves (podman).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import { CLI, REPO_ROOT, runCli, useTempDir } from './harness.js';

interface Service {
  readonly image?: string;
  readonly entrypoint?: readonly string[];
  readonly command?: readonly string[];
  readonly environment?: Readonly<Record<string, string>>;
  readonly ports?: readonly string[];
  readonly volumes?: readonly string[];
}

interface Demo {
  readonly file: string;
  readonly hostPorts: readonly number[];
}

const DEMOS: readonly Demo[] = [
  { file: 'docker-compose-cluster.yml', hostPorts: [8080, 8081, 8082] },
  { file: 'docker-compose-cluster-large.yml', hostPorts: range(8080, 8089) },
  { file: 'docker-compose-acme.yml', hostPorts: range(8080, 8084) },
  { file: 'examples/etcd/docker-compose.yml', hostPorts: [8080, 8081] },
];

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, index) => from + index);
}

function services(file: string): Record<string, Service> {
  const doc = parse(readFileSync(join(REPO_ROOT, file), 'utf8'), { merge: true }) as {
    services: Record<string, Service>;
  };
  return doc.services;
}

/** `${NAME:-default}` as compose reads it with NAME unset. */
const defaults = (text: string): string => text.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');

const hasOpenssl = spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0;

function makeCerts(dir: string, nodes: readonly string[]): void {
  const made = spawnSync('sh', [join(REPO_ROOT, 'examples/cluster/make-certs.sh'), ...nodes], {
    env: { ...process.env, CERTS_DIR: dir },
    encoding: 'utf8',
  });
  assert.equal(made.status, 0, made.stderr);
}

async function assertValid(config: string, cwd: string): Promise<void> {
  const result = await runCli(['-c', config, '--validate-config'], { cwd });
  const output = result.stdout + result.stderr;
  assert.equal(result.code, 0, `${config}: ${output}`);
  assert.match(output, /Configuration is valid\./);
  assert.doesNotMatch(output, /does not exist here/, `${config}: a certificate was not checked`);
}

void test('every compose demo mounts files that exist and publishes its dashboards on 127.0.0.1 and the seed ports', () => {
  for (const demo of DEMOS) {
    const base = dirname(join(REPO_ROOT, demo.file));
    const published: number[] = [];
    for (const [name, service] of Object.entries(services(demo.file))) {
      for (const volume of service.volumes ?? []) {
        const [source] = volume.split(':');
        if (source?.startsWith('.')) {
          assert.ok(
            existsSync(resolve(base, source)),
            `${demo.file} ${name}: ${source} is missing`,
          );
        }
      }
      for (const port of service.ports ?? []) {
        const match = /^127\.0\.0\.1:(\d+):8080$/.exec(port);
        assert.ok(match, `${demo.file} ${name}: ${port} is not 127.0.0.1:<port>:8080`);
        published.push(Number(match[1]));
      }
    }
    assert.deepEqual(
      published.sort((a, b) => a - b),
      demo.hostPorts,
      demo.file,
    );
  }
});

void test(
  'the node configurations the demos mount validate against real certificates',
  { skip: hasOpenssl ? false : 'openssl is not installed (make-certs.sh needs it)' },
  async (t) => {
    const cwd = await useTempDir(t);
    makeCerts(join(cwd, 'certs'), ['yacron-a', 'yacron-b', 'yacron-c']);
    let checked = 0;
    for (const demo of [DEMOS[0]!, DEMOS[3]!]) {
      const base = dirname(join(REPO_ROOT, demo.file));
      for (const [name, service] of Object.entries(services(demo.file))) {
        const mount = (service.volumes ?? []).find((volume) =>
          volume.includes(':/etc/yacron2.d/node.yaml'),
        );
        if (mount === undefined) continue;
        // The cluster demo's certificate paths are relative to the working directory (/ in the
        // container, the certs volume at /certs): here the temp dir with its certs/.
        await assertValid(resolve(base, mount.split(':')[0]!), cwd);
        assert.equal(service.environment?.NODE, name.slice('yacron-'.length), `${name}: NODE`);
        checked += 1;
      }
    }
    assert.equal(checked, 5, 'three cluster nodes and two etcd nodes');
  },
);

void test(
  "the large and acme demos' entrypoint writes one distinct, valid configuration per node from the environment",
  { skip: hasOpenssl ? false : 'openssl is not installed (make-certs.sh needs it)' },
  async (t) => {
    const dir = await useTempDir(t);
    for (const [demo, jobs, size] of [
      [DEMOS[1]!, 'examples/cluster-large/jobs.yaml', 10],
      [DEMOS[2]!, 'examples/acme-platform/jobs.yaml', 5],
    ] as const) {
      const nodes = Object.entries(services(demo.file)).filter(([name]) =>
        name.startsWith('yacron-'),
      );
      assert.equal(nodes.length, size, demo.file);
      const certs = join(dir, `certs-${size}`);
      makeCerts(
        certs,
        nodes.map(([name]) => name),
      );
      const written = new Map<string, string>();
      for (const [name, service] of nodes) {
        assert.deepEqual(service.entrypoint, ['sh', '/config/node-entrypoint.sh'], name);
        const env: Record<string, string> = {};
        for (const [key, value] of Object.entries(service.environment ?? {}))
          env[key] = defaults(value);
        assert.equal(env.NODE_NAME, name);
        assert.equal(env.DISTRIBUTION, 'spread', `${name}: spread by default`);
        const out = join(dir, `${size}-${name}.yaml`);
        const result = spawnSync(
          'sh',
          [join(REPO_ROOT, 'examples/cluster-large/node-entrypoint.sh')],
          {
            env: {
              ...env,
              PATH: process.env.PATH,
              GENERATE_ONLY: '1',
              CERTS_DIR: certs,
              JOBS_FILE: join(REPO_ROOT, jobs),
              CONFIG_OUT: out,
            },
            encoding: 'utf8',
          },
        );
        assert.equal(result.status, 0, result.stderr);
        assert.equal(result.stdout.trim(), out);
        const text = readFileSync(out, 'utf8');
        assert.match(text, new RegExp(`nodeName: ${name}\\n`));
        assert.doesNotMatch(text, new RegExp(`host: '${name}:`), `${name} is not its own peer`);
        assert.equal(text.match(/- host: /g)?.length, size - 1, `${name}: every other node`);
        written.set(name, text);
        await assertValid(out, dir);
      }
      assert.equal(new Set(written.values()).size, size, `${demo.file}: ${size} distinct configs`);
    }
  },
);

void test('the entrypoint refuses bad input naming the variable, and DISTRIBUTION=single-leader is written as such', async (t) => {
  const dir = await useTempDir(t);
  const run = (env: Record<string, string>): ReturnType<typeof spawnSync> =>
    spawnSync('sh', [join(REPO_ROOT, 'examples/cluster-large/node-entrypoint.sh')], {
      env: {
        PATH: process.env.PATH ?? '',
        GENERATE_ONLY: '1',
        CONFIG_OUT: join(dir, 'node.yaml'),
        CLUSTER_HOSTS: 'yacron-a:8443,yacron-b:8443,yacron-c:8443',
        NODE_NAME: 'yacron-b',
        ...env,
      },
      encoding: 'utf8',
    });
  const refusals: [Record<string, string>, RegExp][] = [
    [{ NODE_NAME: '' }, /NODE_NAME is not set/],
    [{ NODE_NAME: 'yacron-x' }, /NODE_NAME 'yacron-x' is not in CLUSTER_HOSTS/],
    [{ DISTRIBUTION: 'round-robin' }, /DISTRIBUTION must be spread or single-leader/],
    [{ CLUSTER_HOSTS: 'yacron-b' }, /CLUSTER_HOSTS entry 'yacron-b' is not name:port/],
    [{ INTERVAL: '5s' }, /INTERVAL must be a whole number of seconds/],
  ];
  for (const [env, message] of refusals) {
    const result = run(env);
    assert.equal(result.status, 2, JSON.stringify(env));
    assert.match(String(result.stderr), message);
  }
  assert.equal(run({ DISTRIBUTION: 'single-leader' }).status, 0);
  assert.match(readFileSync(join(dir, 'node.yaml'), 'utf8'), /distribution: single-leader\n/);
});

void test(
  "the Kubernetes gossip StatefulSet's start script writes a valid config per pod, every other pod a peer",
  { skip: hasOpenssl ? false : 'openssl is not installed (make-certs.sh needs it)' },
  async (t) => {
    const dir = await useTempDir(t);
    const docs = parseAllDocuments(
      readFileSync(join(REPO_ROOT, 'examples/kubernetes/gossip/statefulset.yaml'), 'utf8'),
    ).map((doc) => doc.toJS() as { kind: string; data?: Record<string, string> });
    const data = docs.find((doc) => doc.kind === 'ConfigMap')!.data!;
    const names = [0, 1, 2].map((n) => `yacron2-${n}.yacron2-gossip.jobs.svc`);
    makeCerts(join(dir, 'tls'), names);
    writeFileSync(join(dir, 'jobs.yaml'), data['jobs.yaml']!);
    // The pod's paths, moved into the temp dir; the daemon only validates what was written.
    const script = data['start.sh']!.replaceAll('/tmp/yacron2', join(dir, 'out'))
      .replaceAll('/etc/yacron2/', `${dir}/`)
      .replace(/exec yacron2 /, `exec "${process.execPath}" "${CLI}" -v `);
    const configs = new Set<string>();
    for (const pod of ['yacron2-0', 'yacron2-1', 'yacron2-2']) {
      const result = spawnSync('sh', ['-c', script], {
        env: { PATH: process.env.PATH, POD_NAME: pod, NAMESPACE: 'jobs', REPLICAS: '3' },
        encoding: 'utf8',
      });
      assert.equal(result.status, 0, result.stdout + result.stderr);
      assert.match(result.stdout + result.stderr, /Configuration is valid\./);
      assert.doesNotMatch(result.stdout + result.stderr, /does not exist here/);
      const text = readFileSync(join(dir, 'out', 'node.yaml'), 'utf8');
      assert.match(text, new RegExp(`nodeName: ${pod}\\n`));
      assert.equal(text.match(/- host: 'yacron2-\d\.yacron2-gossip\.jobs\.svc:8443'/g)?.length, 2);
      assert.doesNotMatch(text, new RegExp(`host: '${pod}\\.`));
      configs.add(text);
    }
    assert.equal(configs.size, 3);
  },
);
