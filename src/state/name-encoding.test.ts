import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isYacronError } from '../common/errors.js';
import {
  MAX_PLAIN_ENCODED_LENGTH,
  decodeName,
  encodeName,
  isHashedEncoding,
} from './name-encoding.js';

const TRICKY = [
  'runs/backup',
  'runs%2Fbackup',
  'runs%2fbackup',
  'Backup',
  'backup',
  'BACKUP',
  'bAckup',
  '.',
  '..',
  '...',
  '.hidden',
  'trailing.',
  'a.b',
  'CON',
  'con',
  'Con',
  'con.json',
  'con.',
  'console',
  'nul',
  'NUL.txt',
  'aux',
  'com1',
  'COM1',
  'lpt9',
  'conin$',
  'a\u0000b',
  '\u0000',
  'a/b',
  'a\\b',
  'a b',
  'a:b',
  'a*b?',
  '~',
  'x~y',
  'é',
  'e\u0301',
  '日本',
  '🙂',
  '%',
  '%25',
  '-',
  '_',
];

/** A tiny deterministic PRNG so the fuzz cases are reproducible. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomName(random: () => number): string {
  const alphabet = [
    'a',
    'A',
    'z',
    'Z',
    '.',
    '/',
    '%',
    '0',
    '~',
    '-',
    '_',
    ' ',
    '\u0000',
    'é',
    '🙂',
  ];
  const length = 1 + Math.floor(random() * 8);
  let name = '';
  for (let i = 0; i < length; i++) name += alphabet[Math.floor(random() * alphabet.length)]!;
  return name;
}

void test('encodeName() round-trips through decodeName() for tricky names', () => {
  for (const name of TRICKY) {
    const encoded = encodeName(name);
    assert.equal(decodeName(encoded), name, `round trip of ${JSON.stringify(name)}`);
  }
});

void test('encodeName() is injective even after case folding (case-insensitive filesystems)', () => {
  const random = prng(42);
  const names = new Set(TRICKY);
  while (names.size < 5000) names.add(randomName(random));
  const folded = new Map<string, string>();
  for (const name of names) {
    const key = encodeName(name).toLowerCase();
    const previous = folded.get(key);
    assert.equal(previous, undefined, `${JSON.stringify(previous)} and ${JSON.stringify(name)}`);
    folded.set(key, name);
  }
});

void test('encoded names are portable file names: no separators, NUL, dot names or device names', () => {
  for (const name of TRICKY) {
    const encoded = encodeName(name);
    assert.match(encoded, /^[a-z0-9_.%A-F-]+$/, encoded);
    assert.ok(!/^[A-Z]/.test(encoded.replace(/%[0-9A-F]{2}/g, '')), 'no raw upper case');
    assert.notEqual(encoded[0], '.');
    assert.notEqual(encoded.at(-1), '.');
    const base = encoded.split('.')[0]!.toLowerCase();
    assert.ok(!/^(con|prn|aux|nul|com\d|lpt\d|conin\$|conout\$)$/.test(base), encoded);
  }
  assert.equal(encodeName('runs/backup'), 'runs%2Fbackup');
  assert.equal(encodeName('Backup'), '%42ackup');
  assert.equal(encodeName('con'), '%63on');
  assert.equal(encodeName('..'), '%2E%2E');
  assert.equal(encodeName('a\u0000b'), 'a%00b');
});

void test('long names get a bounded hashed form that stays distinct', () => {
  const long = 'Job'.repeat(100);
  const other = 'Job'.repeat(99) + 'Jox';
  const encoded = encodeName(long);
  assert.ok(isHashedEncoding(encoded));
  assert.ok(encoded.length <= MAX_PLAIN_ENCODED_LENGTH, `${encoded.length}`);
  assert.notEqual(encoded, encodeName(other));
  assert.equal(decodeName(encoded), undefined, 'the hashed form does not decode');
  const fits = 'a'.repeat(MAX_PLAIN_ENCODED_LENGTH);
  assert.equal(encodeName(fits), fits);
  assert.ok(isHashedEncoding(encodeName(fits + 'a')));
});

void test('decodeName() refuses non-canonical and foreign file names', () => {
  for (const foreign of ['runs%2fbackup', 'Backup', '%4', '%ZZ', 'a~b', '', '.x', 'x.', '%C3']) {
    assert.equal(decodeName(foreign), undefined, foreign);
  }
});

void test('empty names and lone surrogates are refused with YC_ERR_STATE_NAME_INVALID', () => {
  for (const bad of ['', 'a\uD800', '\uDC00b']) {
    assert.throws(
      () => encodeName(bad),
      (error) => isYacronError(error, 'YC_ERR_STATE_NAME_INVALID'),
    );
  }
});
