// AttemptOutputs: one buffer per running attempt, closed (listeners get `end`) and dropped when
// the attempt ends; a stale attempt's close does not drop its successor's buffer.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { AttemptOutputs } from './attempt-outputs.js';

void test('an attempt buffer is found while it runs and gone once it ends', () => {
  const outputs = new AttemptOutputs({ maxLines: 2, maxChars: 100, maxLineChars: 10 });
  const output = outputs.open('etl', 'r1', 'a', 'etl.a', 'run1');
  output.push({ stream: 'stdout', line: 'one' });
  output.push({ stream: 'stdout', line: 'two' });
  output.push({ stream: 'stderr', line: 'three' });
  assert.equal(outputs.running('etl', 'r1', 'a'), output);
  assert.equal(outputs.running('etl', 'r1', 'b'), null);
  assert.equal(outputs.running('etl', 'r2', 'a'), null);
  // Bounded like the job log tail: the oldest line went.
  assert.deepEqual(
    output.lines().map((entry) => entry.line),
    ['two', 'three'],
  );
  let ended = 0;
  output.subscribe({ line: () => undefined, end: () => (ended += 1) });
  outputs.close('etl', 'r1', 'a', output);
  assert.equal(ended, 1);
  assert.equal(output.closed, true);
  assert.equal(outputs.running('etl', 'r1', 'a'), null);
  assert.equal(outputs.size, 0);
});

void test('a new attempt replaces a leftover buffer; the stale close leaves the new one', () => {
  const outputs = new AttemptOutputs();
  const first = outputs.open('etl', 'r1', 'a', 'etl.a', 'run1');
  const second = outputs.open('etl', 'r1', 'a', 'etl.a', 'run2');
  assert.equal(first.closed, true);
  outputs.close('etl', 'r1', 'a', first);
  assert.equal(outputs.running('etl', 'r1', 'a'), second);
  assert.equal(second.closed, false);
});
