import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { FailsWhen } from '../config/index.js';
import { decideFailReason } from './fail-reason.js';
import type { CapturedStream } from './types.js';

const defaults: FailsWhen = {
  producesStdout: false,
  producesStderr: true,
  nonzeroReturn: true,
  always: false,
};
const none: CapturedStream = { text: '', discardedLines: 0, truncated: false };
const some: CapturedStream = { text: 'x\n', discardedLines: 0, truncated: false };
const onlyDiscarded: CapturedStream = { text: '', discardedLines: 3, truncated: true };
const all: FailsWhen = {
  producesStdout: true,
  producesStderr: true,
  nonzeroReturn: true,
  always: true,
};

void test('decideFailReason() is null for exit 0 without output under the defaults', () => {
  assert.equal(decideFailReason(defaults, 0, none, none), null);
});

void test('decideFailReason() takes the first matching rule: always, retcode, stdout, stderr', () => {
  assert.equal(decideFailReason(all, 3, some, some), 'failsWhen=always');
  const noAlways = { ...all, always: false };
  assert.equal(decideFailReason(noAlways, 3, some, some), 'failsWhen=nonzeroReturn and retcode=3');
  assert.equal(
    decideFailReason(noAlways, 0, some, some),
    'failsWhen=producesStdout and stdout is not empty',
  );
  assert.equal(
    decideFailReason(noAlways, 0, none, some),
    'failsWhen=producesStderr and stderr is not empty',
  );
});

void test('decideFailReason() prints negative codes for signals, timeouts', () => {
  assert.equal(
    decideFailReason(defaults, -100, none, none),
    'failsWhen=nonzeroReturn and retcode=-100',
  );
  assert.equal(
    decideFailReason(defaults, -9, none, none),
    'failsWhen=nonzeroReturn and retcode=-9',
  );
});

void test('decideFailReason() ignores a non-zero exit when nonzeroReturn is off', () => {
  assert.equal(decideFailReason({ ...defaults, nonzeroReturn: false }, 1, none, none), null);
});

void test('decideFailReason() counts discarded-only output as output', () => {
  assert.equal(
    decideFailReason(defaults, 0, none, onlyDiscarded),
    'failsWhen=producesStderr and stderr is not empty',
  );
});

void test('decideFailReason() never fails on an uncaptured stream', () => {
  assert.equal(decideFailReason(all, 0, null, null) === 'failsWhen=always', true);
  assert.equal(decideFailReason({ ...all, always: false }, 0, null, null), null);
});
