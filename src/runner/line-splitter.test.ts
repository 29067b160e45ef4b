import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { LineSplitter } from './line-splitter.js';

function split(
  chunks: readonly string[],
  maxLineBytes = 100,
): { lines: string[]; overlong: number } {
  const lines: string[] = [];
  let overlong = 0;
  const splitter = new LineSplitter(maxLineBytes, {
    line: (bytes) => lines.push(bytes.toString('utf8')),
    overlong: () => overlong++,
  });
  for (const chunk of chunks) splitter.push(Buffer.from(chunk));
  splitter.end();
  return { lines, overlong };
}

void test('LineSplitter keeps each line with its newline and emits a final unterminated line', () => {
  assert.deepEqual(split(['a\nbb\n', 'c']).lines, ['a\n', 'bb\n', 'c']);
});

void test('LineSplitter joins a line that spans several chunks', () => {
  assert.deepEqual(split(['he', 'll', 'o\nwor', 'ld\n']).lines, ['hello\n', 'world\n']);
});

void test('LineSplitter treats a lone newline as a line and ignores an empty stream', () => {
  assert.deepEqual(split(['\n']).lines, ['\n']);
  assert.deepEqual(split([]).lines, []);
  assert.deepEqual(split(['']).lines, []);
});

void test('LineSplitter accepts a line of exactly maxLineLength bytes (newline not counted)', () => {
  assert.deepEqual(split(['12345\n'], 5), { lines: ['12345\n'], overlong: 0 });
});

void test('LineSplitter drops an over-long terminated line whole and reports it once', () => {
  assert.deepEqual(split(['ok\n123456\nafter\n'], 5), { lines: ['ok\n', 'after\n'], overlong: 1 });
});

void test('LineSplitter drops an over-long line spanning chunks without leaking its remainder', () => {
  assert.deepEqual(split(['ok\n1234', '5678', '90\nafter\n'], 5), {
    lines: ['ok\n', 'after\n'],
    overlong: 1,
  });
});

void test('LineSplitter drops an over-long final unterminated line', () => {
  assert.deepEqual(split(['ok\n1234', '5678'], 5), { lines: ['ok\n'], overlong: 1 });
});
