import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MAX_RETAINED_CHARS, OutputRetention } from './output-retention.js';

function retain(saveLimit: number, count: number): OutputRetention {
  const retention = new OutputRetention(saveLimit);
  for (let i = 1; i <= count; i++) retention.add(`l${i}\n`);
  return retention;
}

void test('OutputRetention keeps every line while under saveLimit', () => {
  assert.deepEqual(retain(4, 4).result(), {
    text: 'l1\nl2\nl3\nl4\n',
    discardedLines: 0,
    truncated: false,
  });
});

void test('OutputRetention keeps the head and the tail with a discard marker between them', () => {
  assert.deepEqual(retain(4, 10).result(), {
    text: 'l1\nl2\n   [.... 6 lines discarded ...]\nl9\nl10\n',
    discardedLines: 6,
    truncated: true,
  });
});

void test('OutputRetention gives the odd line of saveLimit to the tail', () => {
  assert.equal(retain(3, 6).text(), 'l1\n   [.... 3 lines discarded ...]\nl5\nl6\n');
  assert.equal(retain(1, 3).text(), '   [.... 2 lines discarded ...]\nl3\n');
});

void test('OutputRetention with saveLimit 0 keeps nothing and counts every line as discarded', () => {
  assert.deepEqual(retain(0, 5).result(), { text: '', discardedLines: 5, truncated: true });
  assert.deepEqual(retain(0, 0).result(), { text: '', discardedLines: 0, truncated: false });
});

void test('OutputRetention marks the text truncated after an over-long line without counting it', () => {
  const retention = retain(10, 2);
  retention.noteOverlongLine();
  assert.deepEqual(retention.result(), { text: 'l1\nl2\n', discardedLines: 0, truncated: true });
});

void test('OutputRetention keeps at most MAX_RETAINED_CHARS per stream, whatever saveLimit allows', () => {
  const retention = new OutputRetention(4096);
  const line = (n: number): string => `${String(n).padStart(3, '0')}${'x'.repeat(299_996)}\n`;
  for (let n = 1; n <= 20; n++) retention.add(line(n));
  const { text, discardedLines, truncated } = retention.result();
  assert.ok(text.length <= MAX_RETAINED_CHARS + 100, `${text.length} characters kept`);
  assert.equal(truncated, true);
  // The head keeps the first lines that fit half the budget, the tail the newest that fit.
  assert.ok(text.startsWith(line(1)));
  assert.ok(text.endsWith(line(20)));
  const kept = text.split('\n').filter((l) => /^\d{3}x/.test(l)).length;
  assert.equal(discardedLines, 20 - kept);
  assert.match(
    text,
    new RegExp(`\\n {3}\\[\\.\\.\\.\\. ${discardedLines} lines discarded \\.\\.\\.\\]\\n`),
  );
});

void test('OutputRetention drops a single line larger than half the budget as discarded', () => {
  const retention = new OutputRetention(4);
  retention.add('first\n');
  retention.add(`${'y'.repeat(MAX_RETAINED_CHARS)}\n`);
  retention.add('last\n');
  assert.deepEqual(retention.result(), {
    text: 'first\n   [.... 1 lines discarded ...]\nlast\n',
    discardedLines: 1,
    truncated: true,
  });
});

void test('OutputRetention keeps the tail in order when the character budget drops lines before the ring is full, then wraps', () => {
  // saveLimit 8: head 4, tail 4 lines; 40 characters: 20 per half.
  const retention = new OutputRetention(8, 40);
  for (const line of ['h1\n', 'h2\n', 'h3\n', 'h4\n']) retention.add(line);
  retention.add('a-long-line-10\n'); // 15 characters: the tail's first
  retention.add('b-long-line-10\n'); // over 20 together: the first is dropped, 1 line held
  for (const line of ['c\n', 'd\n', 'e\n', 'f\n', 'g\n']) retention.add(line);
  assert.equal(retention.text(), 'h1\nh2\nh3\nh4\n   [.... 3 lines discarded ...]\nd\ne\nf\ng\n');
  assert.equal(retention.discardedLines, 3);
});
