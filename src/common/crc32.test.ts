// crc32 against values Python's zlib.crc32 printed for the same bytes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crc32 } from './crc32.js';

const utf8 = (text: string): Uint8Array => Buffer.from(text, 'utf8');

void test('crc32 equals Python zlib.crc32', () => {
  assert.equal(crc32(utf8('')), 0);
  assert.equal(crc32(utf8('a')), 3904355907);
  assert.equal(crc32(utf8('nightly-report')), 2217464496);
  assert.equal(crc32(utf8('other-job')), 2021303420);
  assert.equal(crc32(utf8('é-job')), 222854743);
  assert.equal(crc32(utf8('123456789')), 0xcbf43926); // the standard check value
});
