import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planParts, PartsOrderError, runInOrder } from './parts.js';

const close = { kind: 'awaited', run: () => undefined } as const;
const names = (parts: readonly { readonly name: string }[]): string[] =>
  parts.map((part) => part.name);

test('the start order follows the after-edges, table order breaking ties', () => {
  const plan = planParts<unknown>([
    { name: 'web', after: ['store', 'jobs'], close },
    { name: 'jobs', after: ['store'], close },
    { name: 'logging' },
    { name: 'store', close },
  ]);
  assert.deepEqual(names(plan.start), ['logging', 'store', 'jobs', 'web']);
});

test('teardown is exactly the start order reversed, closers only', () => {
  const plan = planParts<unknown>([
    { name: 'a', close },
    { name: 'b', after: ['a'] },
    { name: 'c', after: ['b'], close },
    { name: 'd', after: ['a'], close },
  ]);
  assert.deepEqual(names(plan.start), ['a', 'b', 'c', 'd']);
  assert.deepEqual(names(plan.teardown), ['d', 'c', 'a']);
});

test('reload reconciles and every pass runs in the start order', () => {
  const reconcile = () => undefined;
  const pass = () => undefined;
  const plan = planParts<unknown>([
    { name: 'web', after: ['durable'], reconcile },
    { name: 'cluster', pass },
    { name: 'durable', after: ['state'], reconcile, pass },
    { name: 'state', reconcile },
  ]);
  assert.deepEqual(names(plan.start), ['cluster', 'state', 'durable', 'web']);
  assert.deepEqual(names(plan.reload), ['state', 'durable', 'web']);
  assert.deepEqual(names(plan.pass), ['cluster', 'durable']);
});

test('a cycle is refused, naming the parts on it', () => {
  assert.throws(
    () =>
      planParts<unknown>([
        { name: 'free' },
        { name: 'a', after: ['c'] },
        { name: 'b', after: ['a', 'free'] },
        { name: 'c', after: ['b'] },
        { name: 'd', after: ['a'] },
      ]),
    (error: unknown) =>
      error instanceof PartsOrderError &&
      error.message === `The parts' after-edges form a cycle: "a" after "c" after "b" after "a"`,
  );
  assert.throws(() => planParts<unknown>([{ name: 'self', after: ['self'] }]), {
    name: 'PartsOrderError',
    message: `The parts' after-edges form a cycle: "self" after "self"`,
  });
});

test('an edge to an unknown part and a duplicate name are refused', () => {
  assert.throws(() => planParts<unknown>([{ name: 'web', after: ['nope'] }]), {
    name: 'PartsOrderError',
    message: 'Part "web" is after "nope", which is no part',
  });
  assert.throws(() => planParts<unknown>([{ name: 'web' }, { name: 'web' }]), {
    name: 'PartsOrderError',
    message: 'Two parts are named "web"',
  });
});

test('runInOrder awaits only the steps that return a promise: synchronous ones run in one turn', async () => {
  const seen: string[] = [];
  let queued = false;
  const running = runInOrder(['a', 'b', 'c', 'd'], (name) => {
    seen.push(`${name}${queued ? ' after the queued work' : ''}`);
    if (name === 'a') queueMicrotask(() => void (queued = true));
    if (name === 'c') return Promise.resolve();
    return undefined;
  });
  await running;
  assert.deepEqual(seen, ['a', 'b', 'c', 'd after the queued work']);
});
