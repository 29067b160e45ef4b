import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fuzzyFilter, fuzzyScore } from './fuzzy.js';

describe('fuzzy matching', () => {
  it('needs the query characters in order', () => {
    assert.equal(fuzzyScore('tl', 'Open timeline'), fuzzyScore('tl', 'Open timeline'));
    assert.notEqual(fuzzyScore('tml', 'Open timeline'), null);
    assert.equal(fuzzyScore('lmt', 'Open timeline'), null);
  });

  it('ranks word starts and runs first', () => {
    const labels = ['Toggle theme', 'Open incident timeline', 'Set token'];
    assert.deepEqual(
      fuzzyFilter(labels, 'tim', (label) => label),
      ['Open incident timeline'],
    );
    // Both letters at word starts beat letters inside a word, although the label is longer.
    assert.deepEqual(
      fuzzyFilter(['Refresh now', 'Run failing jobs'], 'rf', (label) => label),
      ['Run failing jobs', 'Refresh now'],
    );
    assert.equal(fuzzyFilter(labels, 'token', (label) => label)[0], 'Set token');
  });

  it('keeps everything, in order, for an empty query', () => {
    assert.deepEqual(
      fuzzyFilter(['b', 'a'], '  ', (label) => label),
      ['b', 'a'],
    );
  });
});
