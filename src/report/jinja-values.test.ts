import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { textOf, toJinjaJson, toPythonRepr, toPythonText } from './jinja-values.js';

void test('toPythonText prints like str(): None, True, False, numbers, text as is', () => {
  assert.equal(toPythonText(undefined), '');
  assert.equal(toPythonText(null), 'None');
  assert.equal(toPythonText(true), 'True');
  assert.equal(toPythonText(false), 'False');
  assert.equal(toPythonText('a\nb'), 'a\nb');
  assert.equal(toPythonText(127), '127');
  assert.equal(toPythonText(-100), '-100');
  assert.equal(toPythonText(1.5), '1.5');
  assert.equal(toPythonText(0.00001), '1e-05');
  assert.equal(toPythonText(1.5e-7), '1.5e-07');
  assert.equal(toPythonText(0.0001), '0.0001');
  assert.equal(toPythonText(2 ** 53), '9007199254740992');
  assert.equal(toPythonText(1.5e300), '1.5e+300');
  assert.equal(toPythonText(Number.NaN), 'nan');
  assert.equal(toPythonText(-Infinity), '-inf');
});

void test('toPythonRepr quotes like repr(): single quotes unless the text holds one', () => {
  assert.equal(
    toPythonRepr(['a', "it's", 'say "x"', 'both \' "', 'tab\t\\']),
    String.raw`['a', "it's", 'say "x"', 'both \' "', 'tab\t\\']`,
  );
  assert.equal(toPythonRepr({ a: 1, b: [true, null] }), "{'a': 1, 'b': [True, None]}");
  assert.equal(toPythonRepr('\u0001é'), "'\\x01é'");
});

void test('a SafeString prints as its text', () => {
  class Safe {
    toString(): string {
      return '<b>';
    }
  }
  assert.equal(
    toPythonText(new Safe(), (value) => value instanceof Safe),
    '<b>',
  );
});

void test('toJinjaJson matches Jinja tojson: sorted keys, Python separators, ASCII, html-safe', () => {
  assert.equal(
    toJinjaJson({ b: 1, a: [1, 2.5, null, true] }),
    '{"a": [1, 2.5, null, true], "b": 1}',
  );
  assert.equal(
    toJinjaJson("<a href='x'>&</a>"),
    '"\\u003ca href=\\u0027x\\u0027\\u003e\\u0026\\u003c/a\\u003e"',
  );
  assert.equal(
    toJinjaJson('é😀\u007f\u0000"\\\n\r\t\b\f'),
    '"\\u00e9\\ud83d\\ude00\\u007f\\u0000\\"\\\\\\n\\r\\t\\b\\f"',
  );
  assert.equal(toJinjaJson([]), '[]');
  assert.equal(toJinjaJson({}), '{}');
  assert.equal(toJinjaJson(undefined), 'null');
  assert.equal(toJinjaJson(1e-7), '1e-07');
  assert.equal(toJinjaJson(Number.POSITIVE_INFINITY), 'Infinity');
});

void test('toJinjaJson with indent pretty-prints like json.dumps(indent=n)', () => {
  assert.equal(
    toJinjaJson({ a: [1, { c: [] }], b: 'x' }, { indent: 2 }),
    '{\n  "a": [\n    1,\n    {\n      "c": []\n    }\n  ],\n  "b": "x"\n}',
  );
});

void test('textOf uses an object own toString and never throws on odd values', () => {
  assert.equal(textOf('x'), 'x');
  assert.equal(textOf(3), '3');
  assert.equal(textOf(null), 'null');
  assert.equal(textOf(Symbol('s')), 'Symbol(s)');
  assert.equal(textOf({}), '[object Object]');
  assert.equal(textOf(Object.create(null)), '[object Object]');
});
