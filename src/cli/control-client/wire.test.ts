// The decoders of the bodies `yacron2 logs` reads: the shapes of docs/http-api.md are taken, a
// body of another shape gives null (never a half-typed value).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  decodeArchiveHeader,
  decodeArchiveList,
  decodeErrorBody,
  decodeJobRunning,
  decodeJson,
  decodeOutputLine,
  decodeRunFinished,
  decodeRunStarted,
  decodeStreamEnd,
} from './wire.js';

const HEADER = {
  finished_at: '2026-06-20T03:04:10.500000+00:00',
  outcome: 'failure',
  exit_code: 3,
  redacted: true,
  dropped_lines: 0,
};

void test('an archive listing and a jsonl header', () => {
  const list = { name: 'etl', archives: [{ id: 'a1', ...HEADER, lines: 2 }] };
  assert.deepEqual(decodeArchiveList(list), list);
  assert.deepEqual(decodeArchiveList({ name: 'etl', archives: [] }), { name: 'etl', archives: [] });
  assert.deepEqual(decodeArchiveHeader(HEADER), HEADER);
  assert.deepEqual(decodeArchiveHeader({ ...HEADER, exit_code: null }), {
    ...HEADER,
    exit_code: null,
  });
  assert.deepEqual(decodeJson(JSON.stringify(HEADER), decodeArchiveHeader), HEADER);
  // Not that shape: null.
  assert.equal(decodeJson('{', decodeArchiveHeader), null);
  assert.equal(decodeArchiveHeader([HEADER]), null);
  assert.equal(decodeArchiveHeader({ ...HEADER, outcome: 'ok' }), null);
  assert.equal(decodeArchiveHeader({ ...HEADER, exit_code: 1.5 }), null);
  assert.equal(decodeArchiveHeader({ ...HEADER, dropped_lines: -1 }), null);
  assert.equal(decodeArchiveHeader({ ...HEADER, redacted: 'yes' }), null);
  assert.equal(decodeArchiveList({ name: 'etl', archives: [{ ...HEADER, lines: 2 }] }), null);
  assert.equal(decodeArchiveList({ name: 'etl', archives: [{ id: 'a', ...HEADER }] }), null);
  assert.equal(decodeArchiveList({ archives: [] }), null);
});

void test('output lines, the job object, the stream ends', () => {
  assert.deepEqual(decodeOutputLine({ stream: 'stderr', line: 'x\n' }), {
    stream: 'stderr',
    line: 'x\n',
  });
  assert.equal(decodeOutputLine({ stream: 'stdin', line: 'x' }), null);
  assert.equal(decodeOutputLine({ stream: 'stdout', line: 3 }), null);
  assert.deepEqual(decodeJobRunning({ name: 'etl', running: true, pids: [1] }), { running: true });
  assert.equal(decodeJobRunning({ name: 'etl' }), null);
  assert.deepEqual(decodeStreamEnd({}), { reason: null });
  assert.deepEqual(decodeStreamEnd({ reason: 'slow-consumer' }), { reason: 'slow-consumer' });
  assert.equal(decodeStreamEnd('end'), null);
  assert.deepEqual(decodeErrorBody({ error: 'Service Unavailable', message: 'opening' }), {
    message: 'opening',
  });
  assert.equal(decodeErrorBody({ error: 'x' }), null);
});

void test('run:started and run:finished of GET /events', () => {
  assert.deepEqual(decodeRunStarted({ job: 'etl', runId: 'r1', pid: 4 }), {
    job: 'etl',
    runId: 'r1',
  });
  assert.equal(decodeRunStarted({ job: 'etl' }), null);
  const finished = {
    job: 'etl',
    runId: 'r1',
    disposition: 'failure',
    record: { outcome: 'failure', exit_code: 3, finished_at: HEADER.finished_at },
  };
  assert.deepEqual(decodeRunFinished(finished), {
    job: 'etl',
    runId: 'r1',
    outcome: 'failure',
    exit_code: 3,
    finished_at: HEADER.finished_at,
  });
  assert.deepEqual(
    decodeRunFinished({ ...finished, record: { outcome: 'cancelled', exit_code: null } }),
    {
      job: 'etl',
      runId: 'r1',
      outcome: 'cancelled',
      exit_code: null,
      finished_at: null,
    },
  );
  assert.equal(decodeRunFinished({ ...finished, record: null }), null);
});
