// Kubeconfig users that authenticate through an exec credential plugin (EKS, GKE, kubelogin
// style) and through an auth-provider's cached token, with real tiny plugins (sh scripts): what
// the plugin is given (args, env, KUBERNETES_EXEC_INFO), the token and client certificate it
// answers, the answer kept until its expirationTimestamp, the bounds (time, output), and the
// failures, each naming the kubeconfig, the user and the command and never the token.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { FakeClock } from '../../common/index.js';
import { recordingLogger } from '../../logging/testing.js';
import { resolveKubeAccess } from './kube-access.js';
import { runExecPlugin } from './kube-exec-plugin.js';
import type { ExecPluginSpec } from './kube-exec-credential.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kube-exec-'));
const settings = { apiServer: null, leaseNamespace: null };
const T0 = Date.parse('2026-06-01T12:00:00Z');

/** A plugin script in dir; `body` is sh after the shebang. */
function plugin(name: string, body: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

function kubeconfig(name: string, user: string, server = 'https://10.0.0.1:6443'): string {
  const file = path.join(dir, name);
  writeFileSync(
    file,
    `current-context: c
contexts: [{name: c, context: {cluster: k, user: eks-user}}]
clusters: [{name: k, cluster: {server: "${server}", certificate-authority-data: ${Buffer.from('CA PEM').toString('base64')}}}]
users:
  - name: eks-user
    user:
${user}
`,
  );
  return file;
}

const credential = (apiVersion: string, status: Record<string, unknown>): string =>
  JSON.stringify({ apiVersion, kind: 'ExecCredential', status });

void test('a v1 exec plugin: its args, env and KUBERNETES_EXEC_INFO; its token kept until its expirationTimestamp', async () => {
  const runs = path.join(dir, 'runs.log');
  const seen = path.join(dir, 'seen.json');
  writeFileSync(runs, '');
  const expires = new Date(T0 + 15 * 60_000).toISOString();
  plugin(
    'eks-token.sh',
    `echo run >> ${runs}
printf '%s' "$KUBERNETES_EXEC_INFO" > ${seen}
n=$(wc -l < ${runs})
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"tok-%s-%s-%s","expirationTimestamp":"${expires}"}}' "$1" "$AWS_PROFILE" "$n"`,
  );
  const file = kubeconfig(
    'eks.yaml',
    `      exec:
        apiVersion: client.authentication.k8s.io/v1
        command: ./eks-token.sh
        args: [cluster-1]
        env: [{name: AWS_PROFILE, value: prod}]
        interactiveMode: Never
        provideClusterInfo: true`,
  );
  const clock = new FakeClock(T0);
  const access = await resolveKubeAccess(
    { ...settings, kubeconfig: file },
    { env: { PATH: process.env.PATH }, logger: recordingLogger(), clock },
  );
  assert.equal(await access.token(), 'tok-cluster-1-prod-1');
  const info = JSON.parse(readFileSync(seen, 'utf8'));
  assert.deepEqual(info, {
    apiVersion: 'client.authentication.k8s.io/v1',
    kind: 'ExecCredential',
    spec: {
      interactive: false,
      cluster: {
        server: 'https://10.0.0.1:6443',
        'certificate-authority-data': Buffer.from('CA PEM').toString('base64'),
      },
    },
  });
  clock.setWall(T0 + 14 * 60_000);
  assert.equal(await access.token(), 'tok-cluster-1-prod-1', 'kept while fresh');
  assert.equal(readFileSync(runs, 'utf8').split('\n').length - 1, 1);
  clock.setWall(T0 + 14 * 60_000 + 55_000);
  const [a, b] = await Promise.all([access.token(), access.token()]);
  assert.equal(a, 'tok-cluster-1-prod-2', 'run again just before it expires');
  assert.equal(b, a, 'one run for callers that ask together');
  assert.equal(readFileSync(runs, 'utf8').split('\n').length - 1, 2);
  assert.equal(access.tls.cert, undefined);
});

void test('a v1beta1 plugin that answers a client certificate: the connection uses it, no bearer', async () => {
  plugin(
    'cert.sh',
    `printf '%s' '${credential('client.authentication.k8s.io/v1beta1', { clientCertificateData: 'CERT PEM', clientKeyData: 'KEY PEM' })}'`,
  );
  const file = kubeconfig(
    'cert.yaml',
    `      exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: ${path.join(dir, 'cert.sh')}}`,
  );
  const access = await resolveKubeAccess(
    { ...settings, kubeconfig: file },
    { env: {}, logger: recordingLogger(), clock: new FakeClock(T0) },
  );
  assert.equal(await access.token(), null);
  assert.equal(access.tls.cert?.toString(), 'CERT PEM');
  assert.equal(access.tls.key?.toString(), 'KEY PEM');
  assert.equal(access.tls.ca?.toString(), 'CA PEM');
});

void test('a plugin that fails, prints no credential or a wrong one: the start fails naming the kubeconfig, user and command, never the token', async () => {
  const services = { env: { PATH: process.env.PATH }, logger: recordingLogger() };
  const start = (name: string, exec: string): Promise<unknown> =>
    resolveKubeAccess(
      { ...settings, kubeconfig: kubeconfig(name, `      exec: ${exec}`) },
      { ...services, clock: new FakeClock(T0) },
    );
  const v1 = 'apiVersion: client.authentication.k8s.io/v1';
  plugin(
    'expired-sso.sh',
    `echo 'Error: the SSO session has expired; run aws sso login' >&2; exit 255`,
  );
  await assert.rejects(
    start('fails.yaml', `{${v1}, command: ./expired-sso.sh}`),
    /^YacronError: Cannot use the exec credential plugin '.*expired-sso\.sh' of the kubeconfig .*fails\.yaml, user 'eks-user': it exited with 255; it said: Error: the SSO session has expired; run aws sso login$/,
  );
  await assert.rejects(
    start(
      'missing.yaml',
      `{${v1}, command: aws-iam-authenticator-absent, installHint: "install aws-iam-authenticator"}`,
    ),
    /^YacronError: Cannot run the exec credential plugin 'aws-iam-authenticator-absent' of the kubeconfig .*missing\.yaml, user 'eks-user': .*ENOENT.* \(install aws-iam-authenticator\)$/,
  );
  plugin(
    'wrong-version.sh',
    `printf '%s' '${credential('client.authentication.k8s.io/v1beta1', { token: 'leaked-token' })}'`,
  );
  await assert.rejects(
    start('wrong.yaml', `{${v1}, command: ./wrong-version.sh}`),
    (error: Error) =>
      /its output has apiVersion "client.authentication.k8s.io\/v1beta1", the kubeconfig asked for client.authentication.k8s.io\/v1$/.test(
        error.message,
      ) && !error.message.includes('leaked-token'),
  );
  plugin('not-json.sh', `echo 'token: leaked-token'`);
  await assert.rejects(
    start('notjson.yaml', `{${v1}, command: ./not-json.sh}`),
    (error: Error) =>
      /its output is not JSON/.test(error.message) && !error.message.includes('leaked'),
  );
  plugin('empty.sh', `printf '%s' '${credential('client.authentication.k8s.io/v1', {})}'`);
  await assert.rejects(
    start('empty.yaml', `{${v1}, command: ./empty.sh}`),
    /its status has neither a token nor a client certificate/,
  );
  await assert.rejects(
    start('noversion.yaml', '{command: aws}'),
    /^YacronError: Cannot use the kubeconfig .*noversion\.yaml, user 'eks-user': exec\.apiVersion must be one of client\.authentication\.k8s\.io\/v1, client\.authentication\.k8s\.io\/v1beta1/,
  );
  await assert.rejects(
    start('interactive.yaml', `{${v1}, command: kubelogin, interactiveMode: Always}`),
    /exec\.interactiveMode is Always, but the daemon has no terminal/,
  );
  plugin(
    'http-token.sh',
    `printf '%s' '${credential('client.authentication.k8s.io/v1', { token: 'leaked-token' })}'`,
  );
  await assert.rejects(
    resolveKubeAccess(
      {
        ...settings,
        kubeconfig: kubeconfig(
          'http.yaml',
          `      exec: {${v1}, command: ./http-token.sh}`,
          'http://10.0.0.1:8080',
        ),
      },
      { ...services, clock: new FakeClock(T0) },
    ),
    (error: Error) => /is not https:\/\//.test(error.message) && !error.message.includes('leaked'),
  );
});

void test('a plugin is bounded: killed at its time limit, and at 1 MiB of output', async () => {
  const spec = (command: string): ExecPluginSpec => ({
    apiVersion: 'client.authentication.k8s.io/v1',
    command,
    args: [],
    env: [],
    installHint: null,
    cluster: null,
  });
  const hangs = plugin('hangs.sh', 'exec sleep 600');
  const clock = new FakeClock(T0);
  const run = runExecPlugin(spec(hangs), { clock, env: {}, where: 'the test' });
  await clock.advance(30_000);
  await assert.rejects(run, /'.*hangs\.sh' of the test: it did not finish within 30 s$/);
  const floods = plugin('floods.sh', 'exec head -c 3000000 /dev/zero');
  await assert.rejects(
    runExecPlugin(spec(floods), { clock, env: {}, where: 'the test' }),
    /it printed more than 1048576 bytes$/,
  );
});

void test('an auth-provider user: its cached token while its expiry is ahead; expired or absent fails the start with what to do', async () => {
  const clock = new FakeClock(T0);
  const services = { env: {}, logger: recordingLogger(), clock };
  const provider = (name: string, config: string): string =>
    kubeconfig(name, `      auth-provider: {name: oidc, config: {${config}}}`);
  const access = await resolveKubeAccess(
    {
      ...settings,
      kubeconfig: provider('oidc.yaml', `id-token: cached-id, expiry: "2026-06-01T13:00:00Z"`),
    },
    services,
  );
  assert.equal(await access.token(), 'cached-id');
  await assert.rejects(
    resolveKubeAccess(
      {
        ...settings,
        kubeconfig: provider('expired.yaml', `id-token: old-id, expiry: "2026-06-01T11:00:00Z"`),
      },
      services,
    ),
    (error: Error) =>
      /the token its auth-provider 'oidc' cached expired \(2026-06-01T11:00:00Z\), and this build cannot refresh it; switch the user to its exec credential plugin/.test(
        error.message,
      ) && !error.message.includes('old-id'),
  );
  await assert.rejects(
    resolveKubeAccess({ ...settings, kubeconfig: provider('none.yaml', 'client-id: x') }, services),
    /its auth-provider 'oidc' has no cached id-token or access-token/,
  );
});
