// The bounded line splitter and the SSE parser over it: lines cut on newlines across chunks, a
// UTF-8 character split between chunks decoded whole, the bounds refused, events dispatched.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineSplitter } from './line-splitter.js';
import { SseParser, type SseEvent } from './sse-parser.js';

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

void test('SSE: named events, joined data lines, pings and unknown fields ignored, CRLF', () => {
  const events: SseEvent[] = [];
  const parser = new SseParser(1000, (event) => events.push(event));
  for (const line of [
    ': ping',
    'event: line',
    'data: {"stream": "stdout", "line": "a"}',
    '',
    'id: 7',
    'data:x',
    'data: y\r',
    '\r',
    '',
    'event: end',
    'data: {}',
    '',
  ]) {
    assert.deepEqual(parser.line(line), { kind: 'ok' });
  }
  assert.deepEqual(events, [
    { event: 'line', data: '{"stream": "stdout", "line": "a"}' },
    { event: 'message', data: 'x\ny' },
    { event: 'end', data: '{}' },
  ]);
});

void test('SSE: data beyond the bound is refused', () => {
  const parser = new SseParser(10, () => assert.fail('no event'));
  assert.deepEqual(parser.line('data: 12345'), { kind: 'ok' });
  assert.deepEqual(parser.line('data: 67890'), { kind: 'overflow' });
});
