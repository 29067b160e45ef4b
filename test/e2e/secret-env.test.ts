// E2E: a variable of the daemon's environment that a secret source names (secrets[].fromEnvVar,
// web.authToken.fromEnvVar, cluster.etcd.password.fromEnvVar, the mail password, the Sentry DSN,
// the webhook URL) never reaches a job's environment, whoever the job runs as;
// `inheritSecretEnvVars: true` lets a job keep them (docs/configuration.md "Environment").
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startDaemon, type DaemonProcess } from './harness.js';
import { useJobState } from './job-fixture.test.js';

const SECRET_VARIABLES = {
  E2E_WEB_TOKEN: 'tok-web',
  E2E_MAIL_PASSWORD: 'pw-mail',
  E2E_SENTRY_DSN: 'https://key@sentry.invalid/1',
  E2E_HOOK_URL: 'https://hooks.invalid/T000/B000/secret',
  E2E_API_TOKEN: 'tok-api',
  E2E_ETCD_PASSWORD: 'pw-etcd',
};

/** The etcd lease below is never reached: these jobs run without leadership. */
const EVERY_NODE = '    clusterPolicy: EveryNode\n';

/** A job printing its uid and sorted environment once, then a marker line. */
function envJob(name: string, extra = ''): string {
  return `  - name: ${name}
    schedule: "@reboot"
    captureStdout: true
    command: id -u; env | sort; echo END-OF-ENV
${extra}`;
}

/** The NAME=value lines a job printed (after its `id -u` line), and its uid. */
async function jobEnvironment(
  daemon: DaemonProcess,
  name: string,
): Promise<{ uid: string; env: Map<string, string> }> {
  await daemon.waitForLine(new RegExp(`^\\[${name} stdout\\] END-OF-ENV$`), 30_000);
  const prefix = `[${name} stdout] `;
  const lines = daemon.lines
    .filter((line) => line.startsWith(prefix))
    .map((line) => line.slice(prefix.length));
  const env = new Map<string, string>();
  for (const line of lines.slice(1, -1)) {
    const equals = line.indexOf('=');
    if (equals > 0) env.set(line.slice(0, equals), line.slice(equals + 1));
  }
  return { uid: lines[0] ?? '', env };
}

test(
  'variables named by secret sources are stripped from every job environment, under user: too',
  { timeout: 60_000 },
  async (t) => {
    const setup = await useJobState(t);
    const config = await setup.writeJobs(`web:
  listen:
    - http://127.0.0.1:0
  authToken:
    fromEnvVar: E2E_WEB_TOKEN
cluster:
  backend: etcd
  connectTimeout: 1
  etcd:
    endpoints:
      - https://127.0.0.1:9
    username: root
    password:
      fromEnvVar: E2E_ETCD_PASSWORD
jobs:
${envJob(
  'plain',
  `${EVERY_NODE}    onFailure:
      report:
        mail:
          from: cron@example.invalid
          to: ops@example.invalid
          smtpHost: 127.0.0.1
          username: cron
          password:
            fromEnvVar: E2E_MAIL_PASSWORD
        sentry:
          dsn:
            fromEnvVar: E2E_SENTRY_DSN
        webhook:
          url:
            fromEnvVar: E2E_HOOK_URL
`,
)}${envJob(
      'with-secret',
      `${EVERY_NODE}    secrets:
      - name: API
        fromEnvVar: E2E_API_TOKEN
`,
    )}${envJob('nobody', `${EVERY_NODE}    user: 65534\n`)}`);
    const daemon = startDaemon(t, ['-c', config], {
      env: { ...setup.env, ...SECRET_VARIABLES, E2E_PLAIN: 'still-here' },
    });
    for (const name of ['plain', 'with-secret', 'nobody']) {
      const { uid, env } = await jobEnvironment(daemon, name);
      assert.equal(uid, name === 'nobody' ? '65534' : '0', name);
      for (const variable of Object.keys(SECRET_VARIABLES)) {
        assert.equal(env.has(variable), false, `${name} sees ${variable}`);
      }
      const output = daemon.lines.join('\n');
      for (const value of Object.values(SECRET_VARIABLES)) {
        assert.equal(output.includes(value), false, `the value ${value} was printed`);
      }
      assert.equal(env.get('E2E_PLAIN'), 'still-here', `${name} keeps other variables`);
      // The job has its token; the daemon's echo of its output scrubs it (docs/security.md).
      assert.equal(env.get('YACRON2_STATE_TOKEN'), '[REDACTED]', name);
    }
    assert.equal(await daemon.stop(), 0);
  },
);

test(
  'inheritSecretEnvVars: true lets one job keep them; a job environment entry of the same name still wins',
  { timeout: 60_000 },
  async (t) => {
    const setup = await useJobState(t);
    // The secret source is the other job's: a run's own staged values are scrubbed from the
    // daemon's echo the tests read.
    const config = await setup.writeJobs(`jobs:
${envJob('legacy', '    inheritSecretEnvVars: true\n')}${envJob(
      'explicit',
      `    environment:
      - key: E2E_API_TOKEN
        value: written-in-the-config
    secrets:
      - name: API
        fromEnvVar: E2E_API_TOKEN
`,
    )}`);
    const daemon = startDaemon(t, ['-c', config], {
      env: { ...setup.env, E2E_API_TOKEN: 'tok-api' },
    });
    assert.equal((await jobEnvironment(daemon, 'legacy')).env.get('E2E_API_TOKEN'), 'tok-api');
    assert.equal(
      (await jobEnvironment(daemon, 'explicit')).env.get('E2E_API_TOKEN'),
      'written-in-the-config',
    );
    assert.equal(await daemon.stop(), 0);
  },
);
