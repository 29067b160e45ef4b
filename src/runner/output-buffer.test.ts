import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { RunOutput } from './output-buffer.js';

const lines = (output: RunOutput): string[] => output.lines().map((entry) => entry.line);

void test('RunOutput keeps the last maxLines lines in order, across wraps of its ring', () => {
  const output = new RunOutput('job', 'run-1', { maxLines: 3, maxChars: 1_000, maxLineChars: 100 });
  assert.deepEqual(lines(output), []);
  for (let index = 1; index <= 8; index++) output.push({ stream: 'stdout', line: `l${index}` });
  assert.deepEqual(lines(output), ['l6', 'l7', 'l8']);
});

void test('RunOutput drops the oldest lines for its character budget before its ring is full, then wraps', () => {
  const output = new RunOutput('job', 'run-1', { maxLines: 4, maxChars: 10, maxLineChars: 100 });
  output.push({ stream: 'stdout', line: '123456' });
  output.push({ stream: 'stderr', line: '7890ab' }); // 12 characters: the first goes
  assert.deepEqual(lines(output), ['7890ab']);
  for (const line of ['c', 'd', 'e', 'f', 'g']) output.push({ stream: 'stdout', line });
  assert.deepEqual(lines(output), ['d', 'e', 'f', 'g']);
  assert.deepEqual(
    output.lines().map((entry) => entry.stream),
    ['stdout', 'stdout', 'stdout', 'stdout'],
  );
});
