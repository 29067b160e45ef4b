// The spawn helper's environment deltas: what the helper rebuilds (after a JSON round trip, as
// over the channel) is the environment the daemon built, values and key order alike.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { ResolvedJob } from '../config/index.js';
import { buildChildEnvironment } from './child-environment.js';
import { applyEnv, diffEnv, envBase, type EnvPayload } from './env-delta.js';
import { makeJob } from './test-job-fixture.js';

const BASE = { PATH: '/usr/bin:/bin', HOME: '/root', SECRET_TOKEN: 's3cr3t', LANG: 'C.UTF-8' };

/** Diff, send as JSON, apply: the rebuilt environment, and the payload that crossed. */
function roundTrip(
  base: Record<string, string | undefined>,
  env: Record<string, string | undefined>,
): { rebuilt: Record<string, string>; payload: EnvPayload } {
  const payload = JSON.parse(JSON.stringify(diffEnv(envBase(base), env))) as EnvPayload;
  const rebuilt = applyEnv(envBase(JSON.parse(JSON.stringify(envBase(base).env))), payload);
  return { rebuilt, payload };
}

/** The same object as `expected`, key order included. */
function assertSameEnv(actual: Record<string, string>, expected: Record<string, unknown>): void {
  assert.deepEqual(Object.entries(actual), Object.entries(expected));
}

void test('the base itself crosses as an empty delta', () => {
  const { rebuilt, payload } = roundTrip(BASE, { ...BASE });
  assert.deepEqual(payload, { kind: 'delta', unset: [], set: {} });
  assertSameEnv(rebuilt, BASE);
});

void test('variables of the job: new ones appended in order, overrides in place', () => {
  const env = { ...BASE, HOME: '/home/job', ZED: '1', ALPHA: '2' };
  const { rebuilt, payload } = roundTrip(BASE, env);
  assert.deepEqual(payload, {
    kind: 'delta',
    unset: [],
    set: { HOME: '/home/job', ZED: '1', ALPHA: '2' },
  });
  assertSameEnv(rebuilt, env);
});

void test('hidden or undefined variables are unset; undefined new ones are left out', () => {
  const env: Record<string, string | undefined> = {
    PATH: BASE.PATH,
    HOME: undefined,
    LANG: 'C',
    NEW: undefined,
  };
  const { rebuilt, payload } = roundTrip(BASE, env);
  assert.deepEqual(payload, { kind: 'delta', unset: ['HOME', 'SECRET_TOKEN'], set: { LANG: 'C' } });
  assertSameEnv(rebuilt, { PATH: BASE.PATH, LANG: 'C' });
});

void test('a base variable out of the base’s order (hidden, then set by the job) sends the whole environment', () => {
  const env = { PATH: BASE.PATH, HOME: BASE.HOME, LANG: BASE.LANG, SECRET_TOKEN: 'mine' };
  const { rebuilt, payload } = roundTrip(BASE, env);
  assert.equal(payload.kind, 'whole');
  assertSameEnv(rebuilt, env);
});

void test('integer-like names, ordered first by JavaScript on both sides, still round-trip', () => {
  const base = { B: 'b', 7: 'seven', A: 'a' };
  for (const env of [
    { ...base, 3: 'three' },
    { ...base, Z: 'z' },
    { B: 'b', A: 'a' },
  ]) {
    assertSameEnv(roundTrip(base, env).rebuilt, env);
  }
});

void test('what buildChildEnvironment builds round-trips exactly', () => {
  const secrets = new Set(['SECRET_TOKEN']);
  const jobs: ResolvedJob[] = [
    makeJob({}),
    makeJob({ environment: [{ key: 'FOO', value: 'bar' }] }),
    makeJob({
      environment: [
        { key: 'SECRET_TOKEN', value: 'own' },
        { key: 'PATH', value: '/x' },
      ],
    }),
    makeJob({ environment: [{ key: 'FOO', value: 'bar' }], inheritSecretEnvVars: true }),
  ];
  for (const job of jobs) {
    for (const extra of [undefined, { YACRON_RUN_ID: 'r1' }]) {
      const built = buildChildEnvironment(job, BASE, extra, secrets).spawnEnv ?? BASE;
      assertSameEnv(roundTrip(BASE, built).rebuilt, built);
    }
  }
});
