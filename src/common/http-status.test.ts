import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ERROR_CODES, YacronError } from './errors.js';
import { HTTP_STATUS, httpStatusOf } from './http-status.js';

void test('every code in the HTTP table is a registered code with a client or availability status', () => {
  for (const [code, status] of Object.entries(HTTP_STATUS)) {
    assert.ok(code in ERROR_CODES, code);
    assert.ok(status !== undefined && status >= 400 && status < 600, `${code}: ${status}`);
  }
  assert.ok(Object.isFrozen(HTTP_STATUS));
});

void test('httpStatusOf answers from the table, and 500 for a code that is not a client fault', () => {
  assert.equal(httpStatusOf(new YacronError('YC_ERR_JOB_UNKNOWN', 'x')), 404);
  assert.equal(httpStatusOf(new YacronError('YC_ERR_REQUEST_RATE_LIMITED', 'x')), 429);
  assert.equal(httpStatusOf(new YacronError('YC_ERR_STATE_IO', 'x')), 500);
});
