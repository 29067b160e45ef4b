import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  docKey,
  escapeNamePart,
  lockLeaseName,
  nameProblem,
  namesInScope,
  unescapeNamePart,
} from './names.js';
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

  void test('the escape keeps plain names unchanged and is injective', () => {
    assert.equal(escapeNamePart('plain-name_1.txt'), 'plain-name_1.txt');
    const names = ['a/b', 'a%2Fb', 'a%b', '%', '/', '%25', '%2F%2f'];
    const escaped = names.map(escapeNamePart);
    assert.equal(new Set(escaped).size, names.length);
    assert.ok(escaped.every((name) => !name.includes('/')));
    assert.deepEqual(escaped.map(unescapeNamePart), names);
  });

  void test('store names: kv/<scope>/<key>, lock/<scope>/<name>#<slot>', () => {
    assert.equal(docKey('kv', 'etl', 'k'), 'kv/etl/k');
    assert.equal(docKey('cursor', 'dagxcom/d/r', 'a/b'), 'cursor/dagxcom/d/r/a%2Fb');
    assert.equal(docKey('idem', 'global', 'x'), 'idem/global/x');
    assert.equal(lockLeaseName('global', 'db', 1), 'lock/global/db#1');
  });

  void test("a scope's listing leaves out the keys of deeper scopes", () => {
    const listed = ['kv/a/x', 'kv/a/b/y', 'kv/a/c%2Fd', 'kv/ab/z'];
    assert.deepEqual(namesInScope('kv', 'a', listed), ['c/d', 'x']);
    assert.deepEqual(namesInScope('kv', 'a/b', listed), ['y']);
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
