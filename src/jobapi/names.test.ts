import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { docNamespace, lockLeaseName, nameProblem } from './names.js';
import { hasOversizedIntegerLiteral } from './json-values.js';

void describe('job API names', () => {
  void test('ordinary names pass, hostile ones are refused with a reason', () => {
    for (const name of [
      'k',
      'a/b',
      'https://example.com/x',
      '..x',
      'x..',
      '.',
      'ü€😀',
      'x'.repeat(4096),
    ]) {
      assert.equal(nameProblem('key', name), undefined, name);
    }
    assert.equal(nameProblem('key', ''), 'key is required');
    assert.equal(nameProblem('key', 'x'.repeat(4097)), 'key is longer than 4096 characters');
    assert.equal(nameProblem('key', 'a\0'), 'key must not contain NUL bytes');
    assert.equal(nameProblem('key', '\ud800x'), 'key is not well-formed Unicode');
    assert.equal(nameProblem('key', '/etc'), "key must not start with '/'");
    assert.equal(nameProblem('key', '\\etc'), "key must not start with '/'");
    assert.equal(nameProblem('key', 'a/../b'), "key must not contain a '..' path segment");
    assert.equal(nameProblem('key', 'a\\..\\b'), "key must not contain a '..' path segment");
  });

  void test('store names: document namespace kv/<scope> (the key as given), lock/<scope>/<name>#<slot>', () => {
    assert.equal(docNamespace('kv', 'etl'), 'kv/etl');
    assert.equal(docNamespace('cursor', 'dagxcom/d/r'), 'cursor/dagxcom/d/r');
    assert.equal(docNamespace('idem', 'global'), 'idem/global');
    assert.equal(lockLeaseName('global', 'db', 1), 'lock/global/db#1');
    assert.equal(
      lockLeaseName('writer', 'a/b', 0),
      'lock/writer/a/b#0',
      'as the reference composes it',
    );
  });

  void test('integer literals beyond 64 bits are found outside strings only', () => {
    assert.equal(hasOversizedIntegerLiteral('{"v": 9223372036854775808}'), true);
    assert.equal(hasOversizedIntegerLiteral('{"v": -9223372036854775809}'), true);
    assert.equal(hasOversizedIntegerLiteral('{"v": -9223372036854775808}'), false);
    assert.equal(hasOversizedIntegerLiteral('{"v": 1e30, "w": 1.5e300}'), false);
    assert.equal(hasOversizedIntegerLiteral('{"v": "99999999999999999999"}'), false);
    assert.equal(hasOversizedIntegerLiteral('{"v\\"": "\\"99999999999999999999"}'), false);
  });
});
