// strictyaml scalar typing (docs/configuration.md "The YAML dialect").
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { parseBoolText, parseFloatText, parseIntText } from './scalars.js';

void test('bools: yes/true/on/1/y and no/false/off/0/n in any case; nothing else', () => {
  for (const word of ['yes', 'TRUE', 'On', '1', 'y', 'Y'])
    assert.equal(parseBoolText(word), true, word);
  for (const word of ['no', 'False', 'OFF', '0', 'n', 'N'])
    assert.equal(parseBoolText(word), false, word);
  for (const word of ['', 'yess', 'enabled', '2', 'nope', '~'])
    assert.equal(parseBoolText(word), undefined, word);
});

void test('ints: optional sign, digits and underscores; no hex, octal prefix or decimals', () => {
  assert.equal(parseIntText('42'), 42);
  assert.equal(parseIntText('-1'), -1);
  assert.equal(parseIntText('+7'), 7);
  assert.equal(parseIntText('4_000'), 4000);
  assert.equal(parseIntText('010'), 10);
  for (const text of ['0x10', '0o7', '1.0', '1e3', '', '_1', 'ten', '99999999999999999999']) {
    assert.equal(parseIntText(text), undefined, text);
  }
});

void test('floats: ints, decimals, exponents, underscores, inf and nan variants', () => {
  assert.equal(parseFloatText('30'), 30);
  assert.equal(parseFloatText('30.0'), 30);
  assert.equal(parseFloatText('.5'), 0.5);
  assert.equal(parseFloatText('5.'), 5);
  assert.equal(parseFloatText('-1.5e-3'), -0.0015);
  assert.equal(parseFloatText('1_000.000_1'), 1000.0001);
  assert.equal(parseFloatText('inf'), Infinity);
  assert.equal(parseFloatText('-.inf'), -Infinity);
  assert.equal(parseFloatText('+Infinity'), Infinity);
  assert.ok(Number.isNaN(parseFloatText('NaN')));
  assert.ok(Number.isNaN(parseFloatText('.nan')));
  for (const text of ['', '.', 'e5', '1e', '1._5', 'soon', '0x1p3']) {
    assert.equal(parseFloatText(text), undefined, text);
  }
});
