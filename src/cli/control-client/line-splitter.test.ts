// The bounded line splitter and the SSE parser over it: lines cut on newlines across chunks, a
// UTF-8 character split between chunks decoded whole, the bounds refused, events dispatched.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineSplitter } from './line-splitter.js';

void test('lines are cut on newlines across chunks, a split UTF-8 character decodes whole', () => {
  const lines: string[] = [];
  const splitter = new LineSplitter(64, (line) => lines.push(line));
  const text = Buffer.from('one\ntw\u00e9\nthree', 'utf8');
  // Split inside the two bytes of é.
  const cut = text.indexOf(0xc3) + 1;
  assert.deepEqual(splitter.push(text.subarray(0, cut)), { kind: 'ok' });
  assert.deepEqual(lines, ['one']);
  assert.deepEqual(splitter.push(text.subarray(cut)), { kind: 'ok' });
  assert.deepEqual(lines, ['one', 'tw\u00e9']);
  splitter.finish();
  assert.deepEqual(lines, ['one', 'tw\u00e9', 'three']);
  splitter.finish();
  assert.equal(lines.length, 3, 'nothing left after finish');
});

void test('a line longer than the bound is refused, complete or still open', () => {
  const complete = new LineSplitter(4, () => undefined);
  assert.deepEqual(complete.push(Buffer.from('12345\n')), { kind: 'overflow' });
  const open = new LineSplitter(4, () => undefined);
  assert.deepEqual(open.push(Buffer.from('123')), { kind: 'ok' });
  assert.deepEqual(open.push(Buffer.from('45')), { kind: 'overflow' });
  const exact = new LineSplitter(4, () => undefined);
  assert.deepEqual(exact.push(Buffer.from('1234\n1234\n')), { kind: 'ok' });
});
