import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareCodePoints } from './python-json.js';
import {
  atMostCodePoints,
  codePointLength,
  isPythonPrintable,
  minByCodePoint,
  pythonAscii,
  pythonRepr,
  sortByCodePoint,
} from './python-text.js';

void test('compareCodePoints puts an astral character after U+FF21 (JavaScript < does the opposite)', () => {
  assert.ok('\u{1F600}' < '\uFF21', 'UTF-16 order, the trap');
  assert.ok(compareCodePoints('\uFF21', '\u{1F600}') < 0);
  assert.ok(compareCodePoints('\u{1F600}', '\uFF21') > 0);
  assert.ok(compareCodePoints('\uE000', '\u{10000}') < 0);
});

void test('compareCodePoints: equal strings, prefixes and plain ASCII', () => {
  assert.equal(compareCodePoints('node-1', 'node-1'), 0);
  assert.ok(compareCodePoints('node', 'node-1') < 0);
  assert.ok(compareCodePoints('B', 'a') < 0);
  assert.ok(compareCodePoints('a\u{1F600}', 'a\u{1F601}') < 0, 'pairs that differ in the low half');
});

void test('sortByCodePoint and minByCodePoint follow code point order', () => {
  assert.deepEqual(sortByCodePoint(['\u{1D49C}', '\uFF21', 'z', '\u{1F600}']), [
    'z',
    '\uFF21',
    '\u{1D49C}',
    '\u{1F600}',
  ]);
  assert.equal(minByCodePoint('\u{1F680}', ['\u{20000}', '\uFFE0']), '\uFFE0');
});

void test('codePointLength counts a surrogate pair once and a lone surrogate once', () => {
  assert.equal(codePointLength('abc'), 3);
  assert.equal(codePointLength('\u{1F600}x'), 2);
  assert.equal(codePointLength('\uD800x'), 2);
  assert.equal(codePointLength(''), 0);
  assert.ok(atMostCodePoints('\u{1F600}'.repeat(256), 256));
  assert.ok(!atMostCodePoints('\u{1F600}'.repeat(257), 256));
  assert.ok(!atMostCodePoints('a'.repeat(257), 256));
});

void test('isPythonPrintable matches str.isprintable() on the categories that matter', () => {
  for (const printable of ['', 'node-1', 'é', '\u{1F600}', "it's", 'a b', '\uFFFD', '\u{20000}']) {
    assert.ok(isPythonPrintable(printable), JSON.stringify(printable));
  }
  // tab, BEL, ESC, NBSP (Zs), ZWJ (Cf), line separator (Zl), lone surrogate (Cs), private use
  // (Co), a tag character (Cf), a plane-16 private-use code point.
  for (const bad of [
    '\t',
    'a\x07',
    '\x1b[31m',
    '\u00A0',
    '\u200D',
    '\u2028',
    'x\uD800',
    '\uE000',
    '\u{E0001}',
    '\u{10FFFD}',
  ]) {
    assert.ok(!isPythonPrintable(bad), JSON.stringify(bad));
  }
});

void test('pythonRepr quotes and escapes like Python repr()', () => {
  assert.equal(pythonRepr('node-1'), "'node-1'");
  assert.equal(pythonRepr("it's"), `"it's"`);
  assert.equal(pythonRepr(`it's "x"`), `'it\\'s "x"'`);
  assert.equal(pythonRepr('a\\b'), "'a\\\\b'");
  assert.equal(pythonRepr('a\x07\n'), "'a\\x07\\n'");
  assert.equal(pythonRepr('\u200D\u00A0'), "'\\u200d\\xa0'");
  assert.equal(pythonRepr('\u{E0001}é\u{1F600}'), "'\\U000e0001é\u{1F600}'");
});

void test("pythonAscii is repr() with non-ASCII escaped (Python's ascii())", () => {
  assert.equal(pythonAscii('job'), "'job'");
  assert.equal(pythonAscii('é€\u{1F600}'), "'\\xe9\\u20ac\\U0001f600'");
  assert.equal(pythonAscii("it's\n"), '"it\'s\\n"');
  assert.equal(pythonRepr('é€\u{1F600}\x7f\x85'), "'é€\u{1F600}\\x7f\\x85'");
});
