// Archived output: cut to the lines one record holds before redaction, then redacted in chunks
// that give the event loop a turn and change nothing about the result.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fitArchivedLines, redactInChunks } from './archive-text.js';
import { redactSecrets } from './redact.js';

const entriesBytes = (lines: readonly { line: string }[]): number =>
  Buffer.byteLength(JSON.stringify(lines.map(({ line }) => ({ line, stream: 'stdout' }))));

void test('fitArchivedLines keeps lines that fit, and the newest lines of those that do not', () => {
  const few = [{ line: 'short\n' }];
  assert.deepEqual(fitArchivedLines(few, 1000), { lines: few, cut: 0 });
  const lines = Array.from({ length: 1000 }, (_, index) => ({ line: `line ${index}\n` }));
  const fitted = fitArchivedLines(lines, 2000);
  assert.ok(entriesBytes(fitted.lines) <= 2000);
  assert.ok(fitted.cut > 0);
  assert.deepEqual(fitted.lines, lines.slice(fitted.cut), 'the newest, whole and in order');
  // The bound is an upper bound (a control character counted as its \u escape), not a waste.
  assert.ok(entriesBytes(fitted.lines) > 1500, `${entriesBytes(fitted.lines)} bytes kept`);
});

void test('fitArchivedLines counts what JSON makes of the text (escapes, multi-byte characters)', () => {
  for (const text of ['\u0001'.repeat(100), '😀'.repeat(100), '"\\'.repeat(100)]) {
    const lines = Array.from({ length: 20 }, () => ({ line: text }));
    const fitted = fitArchivedLines(lines, 3000);
    assert.ok(entriesBytes(fitted.lines) <= 3000, JSON.stringify(text.slice(0, 2)));
    assert.ok(fitted.lines.length > 0);
  }
  // A single line bigger than the whole bound is cut too.
  assert.deepEqual(fitArchivedLines([{ line: 'x'.repeat(5000) }], 3000).cut, 1);
});

const PEM = [
  '-----BEGIN RSA PRIVATE KEY-----',
  ...Array.from(
    { length: 40 },
    () => 'MIIEowIBAAKCAQEAvVZ0q4Yq8m9u3oX4o1m2N2bYq1p8f5y5tA0Yk3zR7n0e9xJQ',
  ),
  '-----END RSA PRIVATE KEY-----',
].join('\n');

void test('redactInChunks gives the result of redacting the whole text, a key block split by a chunk included', async () => {
  const filler = (n: number): string =>
    Array.from({ length: n }, (_, index) => `ordinary line ${index} of output\n`).join('');
  const text =
    filler(300) +
    'export DB_PASSWORD=hunter2-hunter2\n' +
    filler(10) +
    `${PEM}\n` +
    'curl -H "Authorization: Bearer abcdef0123456789abcdef" https://api.example\n' +
    filler(300) +
    'token: ghp_0123456789abcdefghijABCDEFGHIJ0123456789\n';
  // 1000-character chunks split the 2.7 KB key block; every size must give the same text.
  let chunked = '';
  for (const chunkChars of [1000, 2500, 4096]) {
    let turns = 0;
    chunked = await redactInChunks(
      text,
      redactSecrets,
      () => {
        turns++;
        return Promise.resolve();
      },
      chunkChars,
    );
    assert.equal(chunked, redactSecrets(text), `${chunkChars}-character chunks`);
    assert.ok(turns >= Math.floor(text.length / chunkChars / 2), `${turns} turns`);
  }
  assert.doesNotMatch(
    chunked,
    /hunter2|MIIEowIBAAKCAQEA|abcdef0123456789abcdef|0123456789abcdefghij/,
  );
});

void test('redactInChunks yields to the event loop on the real clock', async () => {
  const text = 'x'.repeat(100) + '\n';
  let ranBetween = false;
  setImmediate(() => {
    ranBetween = true;
  });
  const result = await redactInChunks(text.repeat(5000), redactSecrets);
  assert.equal(result.length, 505_000);
  assert.equal(ranBetween, true, 'a callback queued before ran while redacting');
});
