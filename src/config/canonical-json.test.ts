// The canonical JSON the job identity hashes (docs/configuration.md "Job-set id"): Python's
// json.dumps bytes after the reference's number normalisation. (String escaping and key order
// are common/python-json's, tested there.)
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { canonicalJson, canonicalNumber } from './canonical-json.js';
import { WrittenScalar } from './schema-nodes.js';

void test('integral numbers print as their exact integer, whatever their size or sign', () => {
  const cases: [number, string][] = [
    [30, '30'],
    [30.0, '30'],
    [1e3, '1000'],
    [-0, '0'],
    [-7, '-7'],
    [1e22, '10000000000000000000000'],
    [1e23, '99999999999999991611392'],
    [2e20, '200000000000000000000'],
    [2 ** 53 + 2, '9007199254740994'],
  ];
  for (const [value, text] of cases) assert.equal(canonicalNumber(value), text, String(value));
  assert.equal(canonicalNumber(1.5e300).length, 301);
});

void test('fractions print as Python repr: shortest digits, exponent form below 1e-4', () => {
  const cases: [number, string][] = [
    [0.5, '0.5'],
    [0.0001, '0.0001'],
    [1.2345, '1.2345'],
    [0.0015, '0.0015'],
    [2.675, '2.675'],
    [0.1 + 0.2, '0.30000000000000004'],
    [-0.25, '-0.25'],
    [0.00002, '2e-05'],
    [0.00001, '1e-05'],
    [9.5e-5, '9.5e-05'],
    [1e-7, '1e-07'],
    [2.5e-7, '2.5e-07'],
    [-3e-9, '-3e-09'],
    [1e-100, '1e-100'],
    [5e-324, '5e-324'],
  ];
  for (const [value, text] of cases) assert.equal(canonicalNumber(value), text, String(value));
});

void test('infinities and NaN are bare tokens', () => {
  assert.equal(canonicalJson([Infinity, -Infinity, NaN]), '[Infinity,-Infinity,NaN]');
});

void test('object keys sort by code point (U+FFE0 before U+1F680), lists keep their order', () => {
  assert.equal(
    canonicalJson({ '🚀': 1, '\uffe0': 2, b: [3, 1], a: { d: 1.0, c: null }, t: true }),
    '{"a":{"c":null,"d":1},"b":[3,1],"t":true,"\\uffe0":2,"\\ud83d\\ude80":1}',
  );
});

void test('a scalar kept as written is its text', () => {
  assert.equal(canonicalJson({ count: new WrittenScalar('3_000', false) }), '{"count":"3_000"}');
});
