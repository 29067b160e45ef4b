// Every fingerprint golden case (test/golden/fingerprint/README.md): what the Python reference
// computes for a configuration — job-set id, per-job digests and the exact canonical text each
// digest hashes — must be what we compute, byte for byte.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  appendFileSync,
  cpSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, type LoadConfigOptions } from './index.js';

const GOLDEN = fileURLToPath(new URL('../../test/golden/fingerprint/', import.meta.url));

interface Expected {
  readonly config: string;
  readonly job_set_id: string;
  readonly jobs: Readonly<Record<string, string>>;
  readonly canonical: Readonly<Record<string, string>>;
  readonly note: string;
  readonly same_id_configs?: readonly string[];
  readonly needs_root?: boolean;
}

// `user: root` / `group: root` cases: a host where root exists, loaded as a superuser daemon
// (the reference refuses them otherwise). The identity hashes the names as written anyway.
const accounts = mkdtempSync(path.join(tmpdir(), 'yacron2-golden-'));
process.on('exit', () => rmSync(accounts, { recursive: true, force: true }));
writeFileSync(path.join(accounts, 'passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
writeFileSync(path.join(accounts, 'group'), 'root:x:0:\n');

interface Loaded {
  readonly jobSetId: string;
  readonly digests: ReadonlyMap<string, string>;
  readonly canonical: ReadonlyMap<string, string>;
}

async function load(
  caseDir: string,
  config: string,
  extra: Partial<LoadConfigOptions> = {},
): Promise<Loaded> {
  const canonical = new Map<string, string>();
  const options: LoadConfigOptions = {
    cwd: caseDir,
    euid: 0,
    passwdPath: path.join(accounts, 'passwd'),
    groupPath: path.join(accounts, 'group'),
    onJobIdentity: (name, text) => canonical.set(name, text),
    ...extra,
  };
  const loaded = await loadConfig(config, options);
  return {
    jobSetId: loaded.jobSetId,
    digests: new Map(loaded.jobs.map((job) => [job.name, job.digest])),
    canonical,
  };
}

/** Where two canonical texts first differ: the JSON path, both values, and the bytes around. */
function describeMismatch(actual: string, expected: string): string {
  let at = 0;
  while (at < actual.length && actual[at] === expected[at]) at++;
  const around = (text: string): string =>
    JSON.stringify(text.slice(Math.max(0, at - 60), at + 60));
  const lines = [
    `first difference at byte ${at}`,
    `  expected …${around(expected)}…`,
    `  actual   …${around(actual)}…`,
  ];
  try {
    const field = firstDifference(JSON.parse(actual), JSON.parse(expected), '');
    if (field !== undefined) lines.unshift(`field ${field}`);
  } catch {
    lines.unshift('(the actual text is not valid JSON)');
  }
  return lines.join('\n');
}

function firstDifference(actual: unknown, expected: unknown, at: string): string | undefined {
  if (
    typeof actual === 'object' &&
    actual !== null &&
    typeof expected === 'object' &&
    expected !== null
  ) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])];
    for (const key of keys) {
      const found = firstDifference(
        (actual as Record<string, unknown>)[key],
        (expected as Record<string, unknown>)[key],
        `${at}.${key}`,
      );
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (JSON.stringify(actual) === JSON.stringify(expected)) return undefined;
  return `${at || '(root)'}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

const cases = readdirSync(GOLDEN, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

void test('the golden data is all here', () => {
  assert.equal(cases.length, 52);
});

for (const name of cases) {
  const caseDir = path.join(GOLDEN, name);
  const expected = JSON.parse(
    readFileSync(path.join(caseDir, 'expected.json'), 'utf8'),
  ) as Expected;

  void test(`golden ${name}: ${expected.note || 'job-set id, digests and canonical texts'}`, async () => {
    const loaded = await load(caseDir, expected.config);
    assert.deepEqual([...loaded.canonical.keys()].sort(), Object.keys(expected.canonical).sort());
    for (const [job, text] of Object.entries(expected.canonical)) {
      const actual = loaded.canonical.get(job) ?? '';
      if (actual !== text) assert.fail(`job ${job}: ${describeMismatch(actual, text)}`);
    }
    assert.deepEqual(Object.fromEntries(loaded.digests), expected.jobs);
    assert.equal(loaded.jobSetId, expected.job_set_id);
    for (const other of expected.same_id_configs ?? []) {
      assert.equal((await load(caseDir, other)).jobSetId, expected.job_set_id, other);
    }
  });
}

// The reference never counts a `cluster` section (docs/configuration.md "Job-set id"): every case
// with a valid one added (each backend in turn; for a directory, in a file of its own) still
// has the reference's id and digests. A crontab cannot hold a section.
const CLUSTER_SECTIONS = [
  'cluster:\n  listen: "127.0.0.1:8443"\n  tls:\n    ca: ca.pem\n    cert: a.pem\n    key: a.key\n  peers:\n    - host: b.internal:8443\n',
  'cluster:\n  backend: filesystem\n  filesystem:\n    path: /mnt/shared\n',
  'cluster:\n  backend: kubernetes\n  nodeName: pod-0\n  kubernetes:\n',
  'cluster:\n  backend: etcd\n',
];

void test('golden cases with a cluster section added keep the reference id and digests', async (t) => {
  const work = mkdtempSync(path.join(tmpdir(), 'yacron2-golden-cluster-'));
  t.after(() => rmSync(work, { recursive: true, force: true }));
  let checked = 0;
  for (const name of cases) {
    const expected = JSON.parse(
      readFileSync(path.join(GOLDEN, name, 'expected.json'), 'utf8'),
    ) as Expected;
    if (expected.config.endsWith('.crontab')) continue;
    const caseDir = path.join(work, name);
    cpSync(path.join(GOLDEN, name), caseDir, { recursive: true });
    const section = CLUSTER_SECTIONS[checked % CLUSTER_SECTIONS.length] ?? '';
    const config = path.join(caseDir, expected.config);
    if (statSync(config).isDirectory())
      writeFileSync(path.join(config, 'zz-cluster.yaml'), section);
    else appendFileSync(config, `\n${section}`);
    const loaded = await load(caseDir, expected.config);
    assert.deepEqual(Object.fromEntries(loaded.digests), expected.jobs, name);
    assert.equal(loaded.jobSetId, expected.job_set_id, name);
    checked++;
  }
  assert.equal(checked, cases.length - 3);
});
