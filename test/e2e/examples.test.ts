// E2E: every yacron2 configuration under examples/ passes `yacron2 --validate-config` (the real
// CLI and loader), and the DAG examples together use every DAG feature of docs/dags.md — so the
// check means something for the `dags:` section. The reference's own example files are not in
// this repository; these are ours.
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { loadConfig, type ResolvedDag } from '../../src/config/index.js';
import { REPO_ROOT, runCli, useTempDir } from './harness.js';

const EXAMPLES = join(REPO_ROOT, 'examples');

async function yamlFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await yamlFiles(path)));
    else if (/\.ya?ml$/.test(entry.name)) found.push(path);
  }
  return found.sort();
}

/**
 * A Kubernetes manifest (examples/kubernetes/) or a compose file (examples/etcd/docker-compose.yml)
 * is not a yacron2 configuration; compose-demos.test.ts checks the compose files.
 */
async function isYacronConfig(path: string): Promise<boolean> {
  return !/^(apiVersion|services):/m.test(await readFile(path, 'utf8'));
}

test(
  'every configuration under examples/ validates with the real CLI',
  { timeout: 120_000 },
  async (t) => {
    const cwd = await useTempDir(t);
    // What the examples read from their surroundings: the quickstart's token file (relative to the
    // working directory, made by `npm start`) and the durable-state example's token variable.
    await mkdir(join(cwd, '.yacron2-quickstart'));
    await writeFile(join(cwd, '.yacron2-quickstart', 'token'), 'example-token\n');
    const env = { ...process.env, YACRON2_WEB_TOKEN: 'example-token' };
    const configs = [];
    for (const path of await yamlFiles(EXAMPLES))
      if (await isYacronConfig(path)) configs.push(path);
    const names = configs.map((path) => relative(EXAMPLES, path));
    assert.ok(
      names.includes('dags/yacron2.yaml') && names.includes('dags/fan-out-in.yaml'),
      names.join(),
    );
    assert.ok(names.length >= 12, names.join());
    for (const path of configs) {
      const result = await runCli(['-c', path, '--validate-config'], { cwd, env });
      assert.equal(result.code, 0, `${relative(EXAMPLES, path)}: ${result.stdout}${result.stderr}`);
      assert.match(result.stdout + result.stderr, /Configuration is valid\./);
    }
  },
);

test('the DAG examples use every DAG feature', async () => {
  const dags: ResolvedDag[] = [];
  for (const path of await yamlFiles(join(EXAMPLES, 'dags'))) {
    dags.push(...((await loadConfig(path)).dags ?? []));
  }
  const tasks = dags.flatMap((dag) => dag.tasks);
  const commandOf = (task: (typeof tasks)[number]): string =>
    task.kind === 'approval' ? '' : JSON.stringify(task.job.command);
  const downstreams = (dag: ResolvedDag, id: string): number =>
    dag.tasks.filter((task) => task.dependsOn.includes(id)).length;
  const features: Record<string, boolean> = {
    'fan-out': dags.some((dag) => dag.tasks.some((task) => downstreams(dag, task.id) >= 2)),
    'fan-in': tasks.some((task) => task.dependsOn.length >= 2),
    mapped: tasks.some((task) => task.kind === 'task' && task.expand !== null),
    sensor: tasks.some((task) => task.kind === 'sensor'),
    'approval, onReject skip': tasks.some((t) => t.kind === 'approval' && t.onReject === 'skip'),
    'approval, onReject fail': tasks.some((t) => t.kind === 'approval' && t.onReject === 'fail'),
    'xcom push': tasks.some((task) => commandOf(task).includes('xcom push')),
    'xcom pull': tasks.some((task) => commandOf(task).includes('xcom pull')),
    all_done: tasks.some((task) => task.triggerRule === 'all_done'),
    retries: tasks.some((task) => task.retries > 0 && task.retryDelayMs > 0),
    'schedule, onMissed run-once': dags.some(
      (d) => d.schedule !== null && d.onMissed === 'run-once',
    ),
    'schedule, onMissed run-all': dags.some((d) => d.schedule !== null && d.onMissed === 'run-all'),
    startingDeadlineSeconds: dags.some((dag) => dag.startingDeadlineMs !== null),
    retainRuns: dags.some((dag) => dag.retainRuns !== 50),
  };
  assert.deepEqual(
    Object.entries(features)
      .filter(([, used]) => !used)
      .map(([name]) => name),
    [],
  );
});
