import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { formatTemplate, renderStreamPrefix } from './stream-prefix.js';

const fields = { job_name: 'backup', stream_name: 'stderr' };

void test('renderStreamPrefix() fills {job_name} and {stream_name} like the default prefix', () => {
  assert.equal(renderStreamPrefix('[{job_name} {stream_name}] ', fields), '[backup stderr] ');
});

void test('renderStreamPrefix() turns doubled braces into literal braces', () => {
  assert.equal(renderStreamPrefix('{{{job_name}}} }}{{ ', fields), '{backup} }{ ');
});

void test('renderStreamPrefix() of an empty template is empty (prefix disabled)', () => {
  assert.equal(renderStreamPrefix('', fields), '');
});

void test('renderStreamPrefix() applies str format specs and conversions', () => {
  assert.equal(renderStreamPrefix('{job_name:>8}|', fields), '  backup|');
  assert.equal(renderStreamPrefix('{job_name:*^10}|', fields), '**backup**|');
  assert.equal(renderStreamPrefix('{job_name:.3}|', fields), 'bac|');
  assert.equal(renderStreamPrefix('{job_name!r}: ', fields), "'backup': ");
});

void test('renderStreamPrefix() uses a template it cannot render verbatim instead of throwing', () => {
  for (const bad of ['{', '}', '{unknown}', '{0}', '{}', '{job_name:d}', '{job_name.x}']) {
    assert.throws(() => formatTemplate(bad, fields));
    assert.equal(renderStreamPrefix(bad, fields), bad);
  }
});
