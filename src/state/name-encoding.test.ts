import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { isYacronError } from '../common/index.js';
import {
  MAX_TOKEN_LENGTH,
  decodeName,
  encodeName,
  encodeStoreName,
  escapeNameBytes,
  isTruncatedToken,
  percentDecode,
} from './name-encoding.js';

void test('encodeName() gives the reference tokens of the golden stores', () => {
  assert.equal(encodeName('runs/Report.Daily'), 'runs%2F%52eport%2E%44aily');
  assert.equal(encodeName('runs/nightly report'), 'runs%2Fnightly%20report');
  assert.equal(encodeName('lock/writer/nightly#0'), 'lock%2Fwriter%2Fnightly%230');
  assert.equal(encodeName('Config.Main'), '%43onfig%2E%4Dain');
  assert.equal(encodeName('Ops.West-2'), '%4Fps%2E%57est-2');
  assert.equal(encodeName('k'.repeat(140)), `${'k'.repeat(96)}%.86e9c82008dafb50760e667fedafd675`);
  assert.equal(encodeName('default'), 'default');
  assert.equal(encodeName('kv/writer'), 'kv%2Fwriter');
});

void test('every byte outside [a-z0-9_-] is escaped, upper-case hex, inner dots included', () => {
  assert.equal(encodeName('a.b'), 'a%2Eb');
  assert.equal(encodeName('%'), '%25');
  assert.equal(encodeName('ü'), '%C3%BC');
  assert.equal(encodeName('a b#c'), 'a%20b%23c');
  assert.equal(encodeName('ABC'), '%41%42%43');
  assert.equal(encodeName('snake_case-9'), 'snake_case-9');
  assert.equal(encodeName('..'), '%2E%2E');
});

void test('reserved device names are whole tokens only; com0/lpt0 are not reserved', () => {
  assert.equal(encodeName('aux'), '%61ux');
  assert.equal(encodeName('con'), '%63on');
  assert.equal(encodeName('nul'), '%6Eul');
  assert.equal(encodeName('com9'), '%63om9');
  assert.equal(encodeName('lpt1'), '%6Cpt1');
  assert.equal(encodeName('com0'), 'com0');
  assert.equal(encodeName('lpt0'), 'lpt0');
  assert.equal(encodeName('runs/con'), 'runs%2Fcon');
  assert.equal(encodeName('con.json'), 'con%2Ejson');
  assert.equal(encodeName('CON'), '%43%4F%4E');
  assert.equal(encodeName('console'), 'console');
});

void test('truncation: exactly 130 characters, the cut may split an escape, the hash is of the name', () => {
  const long = 'Ä'.repeat(60); // 6 characters per Ä once escaped: 360
  const token = encodeName(long);
  assert.equal(token.length, MAX_TOKEN_LENGTH);
  assert.equal(token.slice(0, 96), escapeNameBytes(long).slice(0, 96));
  assert.ok(token.slice(0, 96).endsWith('%C3%84'));
  const digest = createHash('sha256').update(long, 'utf8').digest('hex').slice(0, 32);
  assert.equal(token.slice(96), `%.${digest}`);
  const split = encodeName(`abcd${'Ä'.repeat(60)}`);
  assert.ok(split.slice(0, 96).endsWith('%C'), 'the cut splits %C3 after its C');
  assert.ok(isTruncatedToken(token));
  assert.equal(encodeName('a'.repeat(130)), 'a'.repeat(130), '130 characters stay whole');
  assert.equal(encodeName('a'.repeat(131)).length, 130);
  assert.equal(decodeName(token), undefined, 'a truncated token cannot be decoded');
});

void test('the empty name is `_` (the same token as `_`); the store refuses to write it', () => {
  assert.equal(encodeName(''), '_');
  assert.equal(encodeName('_'), '_');
  assert.equal(decodeName('_'), '_');
  assert.throws(
    () => encodeStoreName('', 'stream'),
    (error) => isYacronError(error, 'YC_ERR_STATE_NAME_INVALID'),
  );
  assert.throws(
    () => encodeStoreName('a\ud800', 'stream'),
    (error) => isYacronError(error, 'YC_ERR_STATE_NAME_INVALID'),
  );
});

void test('decoding is percent-decoding, and only canonical tokens name something', () => {
  for (const name of ['runs/Report.Daily', 'a b', 'ü😀', 'aux', 'com0', '%41', 'x'.repeat(130)]) {
    assert.equal(decodeName(encodeName(name)), name, name);
  }
  assert.equal(percentDecode('runs%2fx%zz%'), 'runs/x%zz%');
  assert.equal(percentDecode('%FF'), '\ufffd');
  assert.equal(decodeName('runs%2fx'), undefined, 'a lower-case escape is not the reference token');
  assert.equal(decodeName('Runs'), undefined);
  assert.equal(decodeName('aux'), undefined, 'the reference writes aux as %61ux');
  assert.equal(decodeName(''), undefined);
});

void test('distinct names never share a token (short names), whatever their case', () => {
  const names = [
    'a',
    'A',
    'a.',
    '.a',
    'a%2E',
    'a/b',
    'a%2Fb',
    'A/B',
    'aux',
    '%61ux',
    'con',
    'CON',
    '_',
    'x y',
  ];
  const tokens = names.map((name) => encodeName(name));
  assert.equal(new Set(tokens).size, names.length);
  assert.equal(new Set(tokens.map((token) => token.toLowerCase())).size, names.length);
});
