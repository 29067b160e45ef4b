// Kubernetes credentials from a kubeconfig and from the pod's service account: the contexts,
// clusters and users it names, inline (-data) certificates, insecure-skip-tls-verify (WARNING),
// and the refusals, each naming the file and never a token.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { FakeClock } from '../../common/index.js';
import { recordingLogger } from '../../logging/testing.js';
import { resolveKubeAccess } from './kube-access.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kube-access-'));
const settings = { apiServer: null, leaseNamespace: null };

function config(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

void test('inline certificate data, a client certificate user, insecure-skip-tls-verify warns', async () => {
  const logger = recordingLogger();
  const file = config(
    'inline.yaml',
    `current-context: c
contexts: [{name: c, context: {cluster: k, user: u}}]
clusters: [{name: k, cluster: {server: "https://10.0.0.1:6443/", certificate-authority-data: ${Buffer.from('CA PEM').toString('base64')}, insecure-skip-tls-verify: true}}]
users: [{name: u, user: {client-certificate-data: ${Buffer.from('CERT').toString('base64')}, client-key: key.pem}}]
`,
  );
  writeFileSync(path.join(dir, 'key.pem'), 'KEY');
  const access = await resolveKubeAccess(
    { ...settings, kubeconfig: file },
    { env: {}, logger, clock: new FakeClock() },
  );
  assert.equal(access.base, 'https://10.0.0.1:6443');
  assert.equal(access.namespace, 'default');
  assert.equal(await access.token(), null);
  assert.deepEqual(
    [access.tls.ca?.toString(), access.tls.cert?.toString(), access.tls.key?.toString()],
    ['CA PEM', 'CERT', 'KEY'],
  );
  assert.equal(access.tls.rejectUnauthorized, false);
  assert.deepEqual(access.files, [file, path.join(dir, 'key.pem')]);
  assert.match(logger.at('warn')[0]?.message ?? '', /sets insecure-skip-tls-verify/);
});

void test('a kubeconfig that cannot be used names the file and the missing piece', async () => {
  const env = { env: {}, logger: recordingLogger(), clock: new FakeClock() };
  await assert.rejects(
    resolveKubeAccess({ ...settings, kubeconfig: path.join(dir, 'absent.yaml') }, env),
    /^YacronError: Cannot read the kubeconfig .*absent\.yaml: /,
  );
  const noContext = config('nocontext.yaml', 'current-context: missing\ncontexts: []\n');
  await assert.rejects(
    resolveKubeAccess({ ...settings, kubeconfig: noContext }, env),
    /it has no context named 'missing'/,
  );
  const noServer = config(
    'noserver.yaml',
    'contexts: [{name: c, context: {cluster: k, user: u}}]\nclusters: [{name: k, cluster: {}}]\nusers: [{name: u, user: {token: t}}]\n',
  );
  await assert.rejects(
    resolveKubeAccess({ ...settings, kubeconfig: noServer }, env),
    /its cluster has no server/,
  );
  const badCa = config(
    'badca.yaml',
    'contexts: [{name: c, context: {cluster: k, user: u}}]\nclusters: [{name: k, cluster: {server: "https://x", certificate-authority: gone.pem}}]\nusers: [{name: u, user: {token: t}}]\n',
  );
  await assert.rejects(
    resolveKubeAccess({ ...settings, kubeconfig: badCa }, env),
    /Cannot read certificate-authority .*gone\.pem named by .*badca\.yaml/,
  );
});

void test('in cluster: a missing token or CA fails; the last good token is kept on a read error', async () => {
  const sa = mkdtempSync(path.join(tmpdir(), 'sa-'));
  const env = {
    env: { KUBERNETES_SERVICE_HOST: '10.0.0.1' },
    logger: recordingLogger(),
    clock: new FakeClock(),
    serviceAccountDir: sa,
  };
  await assert.rejects(
    resolveKubeAccess({ ...settings, kubeconfig: null }, env),
    /Cannot read the service-account token/,
  );
  writeFileSync(path.join(sa, 'token'), 'first');
  await assert.rejects(
    resolveKubeAccess({ ...settings, kubeconfig: null }, env),
    /Cannot read the service-account CA/,
  );
  writeFileSync(path.join(sa, 'ca.crt'), 'CA');
  const access = await resolveKubeAccess({ ...settings, kubeconfig: null }, env);
  assert.equal(access.namespace, 'default', 'no namespace file');
  rmSync(path.join(sa, 'token'));
  assert.equal(await access.token(), 'first', 'the last good token');
  await assert.rejects(
    resolveKubeAccess({ ...settings, kubeconfig: null, apiServer: 'http://10.0.0.1' }, env),
    /in-cluster credentials need an https:\/\/ URL/,
  );
});
