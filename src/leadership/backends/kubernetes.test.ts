// The Kubernetes backend against an in-test apiserver (node:https, a test CA, a bearer token),
// reached through a kubeconfig: the client contract; the client-go algorithm (a challenger whose
// clock runs an hour fast cannot steal a freshly renewed lease, but takes it over once the
// duration passes on its own clock); 409 stands the node down for the round; release on stop;
// the written Lease body and holder format; kubeconfig and in-cluster credential resolution.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { FakeClock, systemClock, type Clock } from '../../common/index.js';
import { recordingLogger } from '../../logging/testing.js';
import { makeTestCa } from '../../cluster/testing.js';
import { checkLeaseClientContract } from '../lease-client.contract.js';
import { resolveKubeAccess } from './kube-access.js';
import {
  KubernetesLeaseClient,
  RAN_SET_ANNOTATION,
  type KubernetesLeaseOptions,
} from './kubernetes.js';
import { startElector } from './test-electors.js';
import { startApiserver, type FakeApiserver } from './test-apiserver.js';

const TOKEN = 'sekret-token';
const ca = makeTestCa('kube');
let api: FakeApiserver;
let kubeconfig: string;

before(async () => {
  api = await startApiserver(ca, TOKEN);
  kubeconfig = api.kubeconfig({ namespace: 'jobs' });
});
after(() => api.close());

function client(
  identity: string,
  clock: Clock,
  overrides: Partial<KubernetesLeaseOptions> = {},
  token?: string,
): KubernetesLeaseClient {
  return new KubernetesLeaseClient(
    {
      identity,
      leaseName: 'yacron2-leader',
      leaseNamespace: null,
      leaseDurationSeconds: 15,
      renewDeadlineSeconds: 10,
      retryPeriodSeconds: 2,
      kubeconfig,
      apiServer: null,
      clientLibrary: 'auto',
      connectTimeoutMs: 10_000,
      ...overrides,
    },
    { clock, logger: recordingLogger(), env: {}, ...(token && { token }) },
  );
}

const signal = (): AbortSignal => new AbortController().signal;
const marks = { jobSetId: 'v1:k', jobs: new Set<string>() };

void test('KubernetesLeaseClient keeps the lease client contract', async () => {
  await checkLeaseClientContract({
    clock: systemClock,
    make: async (identity) => {
      const made = client(identity, systemClock, { leaseName: 'contract' });
      await made.start();
      return made;
    },
  });
});

void test('the written Lease: holder <identity>#<12 hex>, MicroTimes, the ran-set annotation', async () => {
  const clock = new FakeClock(Date.UTC(2026, 4, 1, 12, 0, 0, 250));
  const a = client('node-a', clock, { leaseName: 'body' }, '0123456789ab');
  await a.start();
  const outcome = await a.round({ jobSetId: 'v1:k', jobs: new Set(['boot']) }, signal());
  assert.equal(outcome.kind, 'leader');
  const stored = api.leases.get('jobs/body');
  assert.deepEqual(stored?.spec, {
    holderIdentity: 'node-a#0123456789ab',
    leaseDurationSeconds: 15,
    acquireTime: '2026-05-01T12:00:00.250000Z',
    renewTime: '2026-05-01T12:00:00.250000Z',
    leaseTransitions: 0,
  });
  assert.equal(
    (stored?.metadata.annotations as Record<string, string>)[RAN_SET_ANNOTATION],
    '{"jobSetId":"v1:k","jobs":["boot"]}',
  );
  assert.deepEqual(a.details(true, 'node-a'), {
    name: 'body',
    namespace: 'jobs',
    identity: 'node-a#0123456789ab',
    holder: 'node-a',
    expiry: '2026-05-01T12:00:15.250000Z',
  });
  assert.match(
    a.startupLine(),
    /^cluster: kubernetes backend \(http transport\), identity 'node-a#0123456789ab', lease jobs\/body \(duration 15s, renew 10s, retry 2s\)$/,
  );
  await a.close();
});

void test('a challenger with a fast clock cannot steal a fresh lease; it takes over after the duration', async () => {
  const holderClock = new FakeClock(Date.UTC(2026, 4, 1));
  const fastClock = new FakeClock(Date.UTC(2026, 4, 1) + 3_600_000);
  const a = client('node-a', holderClock, { leaseName: 'skew' });
  const b = client('node-b', fastClock, { leaseName: 'skew' });
  await a.start();
  await b.start();
  assert.equal((await a.round(marks, signal())).kind, 'leader');
  const seen = await b.round(marks, signal());
  assert.equal(
    seen.kind,
    'follower',
    'renewTime looks an hour old to b, but b anchors on its own clock',
  );
  assert.equal(seen.holder, 'node-a');
  await fastClock.advance(14_000);
  assert.equal((await b.round(marks, signal())).kind, 'follower', 'still inside the duration');
  await holderClock.advance(2000);
  assert.equal((await a.round(marks, signal())).kind, 'leader', 'the holder renews');
  await fastClock.advance(14_000);
  assert.equal((await b.round(marks, signal())).kind, 'follower', "the renewal reset b's anchor");
  await fastClock.advance(15_000);
  const takeover = await b.round(marks, signal());
  assert.equal(takeover.kind, 'leader', 'a full duration without a renewal: b acquires');
  assert.equal(api.leases.get('jobs/skew')?.spec.leaseTransitions, 1);
  const late = await a.round(marks, signal());
  assert.equal(late.kind, 'follower', 'the old holder now sees b');
  assert.equal(late.holder, 'node-b');
  await a.close();
  await b.close();
});

void test('a 409 on the write stands the node down for the round and names the observed holder', async () => {
  const a = client('node-a', systemClock, { leaseName: 'race' });
  await a.start();
  assert.equal((await a.round(marks, signal())).kind, 'leader');
  api.conflictNext = true;
  const lost = await a.round(marks, signal());
  assert.equal(lost.kind, 'follower');
  assert.equal(lost.holder, 'node-a');
  assert.equal((await a.round(marks, signal())).kind, 'leader', 'the next round renews again');
  await a.close();
});

void test('elector: election, release on stop, the follower takes over at its next round', async () => {
  const a = await startElector(
    client('node-a', systemClock, {
      leaseName: 'stop',
      retryPeriodSeconds: 1,
      renewDeadlineSeconds: 3,
      leaseDurationSeconds: 5,
    }),
    'node-a',
  );
  const b = await startElector(
    client('node-b', systemClock, {
      leaseName: 'stop',
      retryPeriodSeconds: 1,
      renewDeadlineSeconds: 3,
      leaseDurationSeconds: 5,
    }),
    'node-b',
  );
  assert.equal(a.elector.isLeader(), true);
  assert.equal(b.elector.leaderName(), 'node-a');
  await a.elector.stop();
  assert.equal(api.leases.get('jobs/stop')?.spec.holderIdentity, null, 'released');
  await b.until((e) => e.isLeader(), 5000, 'leader after the release');
  await b.elector.stop();
});

void test('credentials: a wrong token is a failed round; the token of an exec plugin is sent; http + token and clientLibrary library fail the start', async () => {
  const wrong = client('x', systemClock, { kubeconfig: api.kubeconfig({ token: 'nope' }) });
  await wrong.start();
  await assert.rejects(
    wrong.round(marks, signal()),
    /^YacronError: Cannot GET lease default\/yacron2-leader: the apiserver answered HTTP 401$|the apiserver answered HTTP 401/,
  );
  await wrong.close();
  const dir = mkdtempSync(path.join(tmpdir(), 'kubecfg-'));
  // An exec credential plugin's token reaches the apiserver (kube-exec-plugin.test.ts: the rest).
  const execPlugin = path.join(dir, 'token-plugin.sh');
  writeFileSync(
    execPlugin,
    `#!/bin/sh\nprintf '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"%s"}}' "$TOKEN"\n`,
    { mode: 0o755 },
  );
  const tokenConfig = api.kubeconfig(); // the exec one beside it: its CA path is relative
  const execConfig = tokenConfig.replace(/\.yaml$/, '-exec.yaml');
  writeFileSync(
    execConfig,
    readFileSync(tokenConfig, 'utf8').replace(
      `      token: ${TOKEN}`,
      `      exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: ${execPlugin}, env: [{name: TOKEN, value: ${TOKEN}}]}`,
    ),
  );
  const viaExec = client('exec-user', systemClock, { kubeconfig: execConfig, leaseName: 'exec' });
  await viaExec.start();
  assert.equal((await viaExec.round(marks, signal())).kind, 'leader');
  await viaExec.close();
  const httpConfig = path.join(dir, 'http.yaml');
  writeFileSync(
    httpConfig,
    'current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\nclusters: [{name: k, cluster: {server: "http://127.0.0.1:1"}}]\nusers: [{name: u, user: {token: abc}}]\n',
  );
  await assert.rejects(
    client('x', systemClock, { kubeconfig: httpConfig }).start(),
    (error: Error) => /is not https:\/\//.test(error.message) && !error.message.includes('abc'),
  );
  await assert.rejects(
    client('x', systemClock, { clientLibrary: 'library' }).start(),
    /^YacronError: cluster.kubernetes.clientLibrary is 'library' but the native client is not importable|clientLibrary is 'library'/,
  );
});

void test('an exec token the apiserver refuses (401) is dropped: the plugin runs again for the next round', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kubecfg-'));
  const runs = path.join(dir, 'runs');
  writeFileSync(runs, '');
  // No expirationTimestamp: kept for the process's life unless refused. The first run's token is
  // a revoked one, every later run's the good one.
  const plugin = path.join(dir, 'rotating.sh');
  writeFileSync(
    plugin,
    `#!/bin/sh\necho run >> ${runs}\nif [ "$(wc -l < ${runs})" -eq 1 ]; then t=revoked; else t=${TOKEN}; fi\nprintf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}' "$t"\n`,
    { mode: 0o755 },
  );
  const tokenConfig = api.kubeconfig();
  const execConfig = tokenConfig.replace(/\.yaml$/, '-rotating.yaml');
  writeFileSync(
    execConfig,
    readFileSync(tokenConfig, 'utf8').replace(
      `      token: ${TOKEN}`,
      `      exec: {apiVersion: client.authentication.k8s.io/v1, command: ${plugin}}`,
    ),
  );
  const node = client('rotating', systemClock, { kubeconfig: execConfig, leaseName: 'rotating' });
  await node.start();
  await assert.rejects(node.round(marks, signal()), /the apiserver answered HTTP 401/);
  assert.equal((await node.round(marks, signal())).kind, 'leader');
  assert.equal(readFileSync(runs, 'utf8').split('\n').length - 1, 2, 'one run per refusal');
  assert.equal((await node.round(marks, signal())).kind, 'leader');
  assert.equal(readFileSync(runs, 'utf8').split('\n').length - 1, 2, 'kept while accepted');
  await node.close();
});

void test('in-cluster: the service account token (re-read per request), CA and namespace; apiServer overrides', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sa-'));
  writeFileSync(path.join(dir, 'token'), `${TOKEN}\n`);
  writeFileSync(path.join(dir, 'namespace'), 'pods-ns\n');
  writeFileSync(
    path.join(dir, 'ca.crt'),
    await import('node:fs').then((fs) => fs.readFileSync(ca.caPath)),
  );
  const { port } = new URL(api.url);
  const access = await resolveKubeAccess(
    { kubeconfig: null, apiServer: null, leaseNamespace: null },
    {
      env: { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: port },
      logger: recordingLogger(),
      clock: systemClock,
      serviceAccountDir: dir,
    },
  );
  assert.equal(access.base, api.url);
  assert.equal(access.namespace, 'pods-ns');
  assert.deepEqual(access.files, [path.join(dir, 'ca.crt')]);
  writeFileSync(path.join(dir, 'token'), 'rotated\n');
  assert.equal(await access.token(), 'rotated', 're-read before every request');
  const v6 = await resolveKubeAccess(
    { kubeconfig: null, apiServer: null, leaseNamespace: 'explicit' },
    {
      env: { KUBERNETES_SERVICE_HOST: 'fd00::1' },
      logger: recordingLogger(),
      clock: systemClock,
      serviceAccountDir: dir,
    },
  );
  assert.equal(v6.base, 'https://[fd00::1]:443');
  assert.equal(v6.namespace, 'explicit');
  const override = await resolveKubeAccess(
    { kubeconfig, apiServer: 'https://override.example:6443/', leaseNamespace: null },
    { env: {}, logger: recordingLogger(), clock: systemClock },
  );
  assert.equal(override.base, 'https://override.example:6443');
  assert.equal(override.namespace, 'jobs', 'the kubeconfig context namespace');
  await assert.rejects(
    resolveKubeAccess(
      { kubeconfig: null, apiServer: null, leaseNamespace: null },
      { env: {}, logger: recordingLogger(), clock: systemClock, serviceAccountDir: dir },
    ),
    /not running in a pod/,
  );
});
