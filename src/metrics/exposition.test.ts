import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  escapeHelp,
  escapeLabelValue,
  formatFloat,
  formatValue,
  negotiateFormat,
  OPENMETRICS_CONTENT_TYPE,
  TEXT_CONTENT_TYPE,
  contentTypeOf,
} from './exposition.js';
import { parseExposition, parseLabelText } from './exposition-parser.js';

describe('exposition values', () => {
  test('integral values print without a decimal point, other floats as the shortest repr', () => {
    assert.equal(formatValue(0), '0');
    assert.equal(formatValue(-0), '0');
    assert.equal(formatValue(1), '1');
    assert.equal(formatValue(-100), '-100');
    assert.equal(formatValue(1751889600), '1751889600');
    assert.equal(formatValue(0.25), '0.25');
    assert.equal(formatValue(1751889600.123), '1751889600.123');
    assert.equal(formatValue(2 ** 53), '9007199254740992.0');
    assert.equal(formatValue(Infinity), '+Inf');
    assert.equal(formatValue(-Infinity), '-Inf');
    assert.equal(formatValue(NaN), 'NaN');
  });

  test('formatFloat() is Python repr(float): 1.0, 60.0, 1e+16, 1e-05', () => {
    assert.equal(formatFloat(1), '1.0');
    assert.equal(formatFloat(60), '60.0');
    assert.equal(formatFloat(0.1), '0.1');
    assert.equal(formatFloat(-0.5), '-0.5');
    assert.equal(formatFloat(0.0001), '0.0001');
    assert.equal(formatFloat(0.00001), '1e-05');
    assert.equal(formatFloat(1e15), '1000000000000000.0');
    assert.equal(formatFloat(1e16), '1e+16');
    assert.equal(formatFloat(123456789012345680000), '1.2345678901234568e+20');
    assert.equal(formatFloat(1.5e300), '1.5e+300');
    assert.equal(formatFloat(Infinity), '+Inf');
  });

  test('label values escape backslash, quote and newline', () => {
    assert.equal(escapeLabelValue('plain'), 'plain');
    assert.equal(escapeLabelValue('a\\b"c\nd'), 'a\\\\b\\"c\\nd');
    assert.deepEqual(parseLabelText('a="x\\\\y\\"z\\nw",b=""'), { a: 'x\\y"z\nw', b: '' });
  });

  test('HELP escapes the double quote only in OpenMetrics', () => {
    assert.equal(escapeHelp('say "hi"\\ now\nok', 'text'), 'say "hi"\\\\ now\\nok');
    assert.equal(escapeHelp('say "hi"\\ now\nok', 'openmetrics'), 'say \\"hi\\"\\\\ now\\nok');
  });
});

describe('content negotiation', () => {
  test('OpenMetrics only when Accept contains application/openmetrics-text', () => {
    assert.equal(negotiateFormat(undefined), 'text');
    assert.equal(negotiateFormat(''), 'text');
    assert.equal(negotiateFormat('text/plain'), 'text');
    assert.equal(negotiateFormat('*/*'), 'text');
    assert.equal(
      negotiateFormat('application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5'),
      'openmetrics',
    );
    assert.equal(negotiateFormat(['text/plain', 'application/openmetrics-text']), 'openmetrics');
    assert.equal(contentTypeOf('text'), 'text/plain; version=0.0.4; charset=utf-8');
    assert.equal(TEXT_CONTENT_TYPE, 'text/plain; version=0.0.4; charset=utf-8');
    assert.equal(
      OPENMETRICS_CONTENT_TYPE,
      'application/openmetrics-text; version=1.0.0; charset=utf-8',
    );
  });
});

describe('the test parser', () => {
  test('rejects blank lines, families without samples and samples outside their family', () => {
    const ok = '# HELP a_total x\n# TYPE a_total counter\na_total 1\n';
    assert.equal(parseExposition(ok, 'text').length, 1);
    assert.throws(() => parseExposition(ok + '\n', 'text'), /blank line/);
    assert.throws(() => parseExposition('# HELP a x\n# TYPE a gauge\n', 'text'), /no samples/);
    assert.throws(() => parseExposition('# HELP a x\n# TYPE a gauge\nb 1\n', 'text'), /belong/);
    assert.throws(() => parseExposition(ok, 'openmetrics'), /# EOF/);
    assert.throws(
      () => parseExposition('# HELP a x\n# TYPE a gauge\na 1\na 2\n', 'text'),
      /duplicate/,
    );
  });
});
