// formatValue(): strings raw, everything else as Python's json.dumps prints it by default.
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { formatValue } from './format-value.js';

void describe('formatValue()', () => {
  void it('prints a string as it is, with no quotes or escapes', () => {
    assert.equal(formatValue('12345'), '12345');
    assert.equal(formatValue('tab\there "q" é'), 'tab\there "q" é');
  });

  void it('prints numbers, booleans and null as JSON', () => {
    assert.equal(formatValue(9), '9');
    assert.equal(formatValue(-0.25), '-0.25');
    assert.equal(formatValue(true), 'true');
    assert.equal(formatValue(null), 'null');
  });

  void it('uses ", " and ": " separators and escapes non-ASCII inside containers', () => {
    assert.equal(
      formatValue({ n: 3, tags: ['a', 'b'], nested: {} }),
      '{"n": 3, "tags": ["a", "b"], "nested": {}}',
    );
    assert.equal(
      formatValue(['é', '😀', 'line\n', '\u007f']),
      '["\\u00e9", "\\ud83d\\ude00", "line\\n", "\\u007f"]',
    );
    assert.equal(formatValue([]), '[]');
  });
});
