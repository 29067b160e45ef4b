// Archived output: cut to one record before redaction, then redacted in chunks that give the
// event loop a turn and change nothing about the result.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fitArchivedText, redactInChunks } from './archive-text.js';
import { redactSecrets } from './redact.js';

void test('fitArchivedText leaves text that fits alone and keeps the newest part of text that does not', () => {
  assert.equal(fitArchivedText('short\n', 1000), 'short\n');
  const lines = Array.from({ length: 1000 }, (_, index) => `line ${index}\n`).join('');
  const fitted = fitArchivedText(lines, 2000);
  assert.ok(Buffer.byteLength(JSON.stringify(fitted)) <= 2000);
  assert.ok(fitted.endsWith('line 999\n'));
  const [marker, first] = fitted.split('\n');
  assert.match(
    marker ?? '',
    /^ {3}\[\.\.\.\. \d+ characters cut to fit the archive record \.\.\.\]$/,
  );
  assert.match(first ?? '', /^line \d+$/, 'it starts at a line start');
  const cut = Number(/(\d+) characters/.exec(marker ?? '')?.[1]);
  assert.equal(lines.slice(cut), fitted.slice((marker ?? '').length + 1));
});

void test('fitArchivedText counts what JSON makes of the text (escapes, multi-byte characters)', () => {
  const controls = '\u0001'.repeat(400); // 6 bytes each in JSON
  assert.ok(Buffer.byteLength(JSON.stringify(fitArchivedText(controls, 1000))) <= 1000);
  const emoji = '😀'.repeat(400); // a surrogate pair: 4 bytes, never split
  const fitted = fitArchivedText(emoji, 1000);
  assert.ok(Buffer.byteLength(JSON.stringify(fitted)) <= 1000);
  assert.doesNotMatch(
    fitted,
    /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/,
  );
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
