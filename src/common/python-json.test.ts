import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  compareCodePoints,
  dumpPythonJson,
  pyFloat,
  pythonFloatRepr,
  pythonIsoformatUtc,
  pythonJsonString,
  RawPythonJson,
} from './python-json.js';

void test('dumpPythonJson() writes the reference golden store files byte for byte', () => {
  // Bytes copied from test/golden/store-reference/store.tar.gz (written by the reference).
  assert.equal(
    dumpPythonJson({
      schemaVersion: 'v1',
      data: {
        value: { tags: ['a', 'b'], retries: 3, ratio: 0.5 },
        updatedAt: 1796135451.790613,
        key: 'settings',
      },
    }),
    '{"data":{"key":"settings","updatedAt":1796135451.790613,"value":{"ratio":0.5,"retries":3,"tags":["a","b"]}},"schemaVersion":"v1"}',
  );
  assert.equal(
    dumpPythonJson({
      name: 'lock/writer/nightly#0',
      holder: 'vm#4f7fbfe95a21#8205df37999544b7c98879b51e440d93',
      fence: 1,
      expiresAt: pyFloat(0),
    }),
    '{"expiresAt":0.0,"fence":1,"holder":"vm#4f7fbfe95a21#8205df37999544b7c98879b51e440d93","name":"lock/writer/nightly#0"}',
  );
  assert.equal(
    dumpPythonJson({
      data: {
        duration: 0.030129,
        exit_code: 3,
        fail_reason: 'failsWhen=nonzeroReturn and retcode=3',
        finished_at: '2026-12-01T14:30:51.606597+00:00',
        outcome: 'failure',
        resources: null,
        started_at: '2026-12-01T14:30:51.576468+00:00',
      },
      schemaVersion: 'v1',
    }),
    '{"data":{"duration":0.030129,"exit_code":3,"fail_reason":"failsWhen=nonzeroReturn and retcode=3","finished_at":"2026-12-01T14:30:51.606597+00:00","outcome":"failure","resources":null,"started_at":"2026-12-01T14:30:51.576468+00:00"},"schemaVersion":"v1"}',
  );
});

void test('pythonFloatRepr() is Python repr(float): .0 for integral values, e-notation past 1e16 and below 1e-4', () => {
  const cases: [number, string][] = [
    [0, '0.0'],
    [-0, '-0.0'],
    [30, '30.0'],
    [1796135452.0283608, '1796135452.0283608'],
    [0.1, '0.1'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [1.5e-7, '1.5e-07'],
    [1e15, '1000000000000000.0'],
    [1e16, '1e+16'],
    [1.2345678901234568e17, '1.2345678901234568e+17'],
    [-2.5, '-2.5'],
    [1e300, '1e+300'],
  ];
  for (const [value, text] of cases) assert.equal(pythonFloatRepr(value), text, String(value));
  assert.throws(() => pythonFloatRepr(Number.NaN), TypeError);
});

void test('numbers: integral values print as ints (also past 2^53), the rest as floats; NaN and Infinity are refused', () => {
  assert.equal(
    dumpPythonJson([1, -7, 0, -0, 2 ** 60, 1.5, 1e-7, 2 ** 64, 12n]),
    '[1,-7,0,0,1152921504606846976,1.5,1e-07,1.8446744073709552e+19,12]',
  );
  assert.equal(dumpPythonJson({ a: pyFloat(1796135481) }), '{"a":1796135481.0}');
  for (const bad of [Number.NaN, Infinity, -Infinity]) {
    assert.throws(() => dumpPythonJson({ bad }), TypeError);
    assert.throws(() => dumpPythonJson({ bad: pyFloat(bad) }), TypeError);
  }
});

void test('strings are escaped like ensure_ascii: lower-case \\u escapes, surrogate pairs, short escapes', () => {
  assert.equal(pythonJsonString('plain / text'), '"plain / text"');
  assert.equal(pythonJsonString('q"b\\n\n\r\t\b\f'), '"q\\"b\\\\n\\n\\r\\t\\b\\f"');
  assert.equal(pythonJsonString('\u0000\u001f\u007f'), '"\\u0000\\u001f\\u007f"');
  assert.equal(pythonJsonString('ü€😀'), '"\\u00fc\\u20ac\\ud83d\\ude00"');
  assert.equal(pythonJsonString('\ud800'), '"\\ud800"');
});

void test('keys sort by code point at every level, like sort_keys=True', () => {
  const value = { b: 1, a: { '\uff01': 1, '😀': 2, Z: 3, _: 4 }, B: [{ y: 1, x: 2 }] };
  assert.equal(
    dumpPythonJson(value),
    '{"B":[{"x":2,"y":1}],"a":{"Z":3,"_":4,"\\uff01":1,"\\ud83d\\ude00":2},"b":1}',
  );
  assert.ok(compareCodePoints('\uff01', '😀') < 0, 'U+FF01 sorts before U+1F600');
  assert.ok('\uff01' > '😀', 'while UTF-16 order says the opposite');
  assert.equal(compareCodePoints('a', 'a'), 0);
  assert.ok(compareCodePoints('a', 'ab') < 0);
});

void test('values convert like JSON.stringify: toJSON, undefined dropped from objects and null in arrays; cycles refused', () => {
  const at = new Date(Date.UTC(2026, 0, 1));
  assert.equal(
    dumpPythonJson({ at, gone: undefined, fn: () => 1, list: [undefined, 1] }),
    '{"at":"2026-01-01T00:00:00.000Z","list":[null,1]}',
  );
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.throws(() => dumpPythonJson(cyclic), TypeError);
  assert.throws(() => dumpPythonJson(undefined), TypeError);
  const shared = { n: 1 };
  assert.equal(dumpPythonJson({ a: shared, b: shared }), '{"a":{"n":1},"b":{"n":1}}');
});

void test('pythonIsoformatUtc() is isoformat() of an aware UTC datetime: microseconds, or none when 0', () => {
  assert.equal(
    pythonIsoformatUtc(Date.UTC(2026, 11, 1, 14, 30, 51, 560)),
    '2026-12-01T14:30:51.560000+00:00',
  );
  assert.equal(pythonIsoformatUtc(Date.UTC(2026, 11, 1, 14, 30, 51)), '2026-12-01T14:30:51+00:00');
  assert.equal(
    pythonIsoformatUtc(Date.UTC(2026, 11, 1, 14, 30, 51) + 0.593),
    '2026-12-01T14:30:51.000593+00:00',
  );
  assert.equal(pythonIsoformatUtc(1796135451560.593), '2026-12-01T14:30:51.560593+00:00');
});

void test('RawPythonJson is written as given, sorted among its siblings; integers past 2^53 still print whole', () => {
  assert.equal(
    dumpPythonJson({ b: new RawPythonJson('{"x":[1,2]}'), a: [new RawPythonJson('7.0')] }),
    '{"a":[7.0],"b":{"x":[1,2]}}',
  );
  assert.equal(
    dumpPythonJson([2 ** 53, 2 ** 60, -0, -(2 ** 53 - 1)]),
    '[9007199254740992,1152921504606846976,0,-9007199254740991]',
  );
});
