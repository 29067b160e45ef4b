import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LogBuffer, compileSearch, findMatches } from './log-buffer.js';

describe('LogBuffer', () => {
  it('numbers lines, strips escapes for search and keeps the raw text', () => {
    const buffer = new LogBuffer(10);
    const line = buffer.add('stderr', '\x1b[31merror\x1b[0m: disk full', 5);
    assert.equal(line.kind, 'line');
    if (line.kind === 'line') {
      assert.equal(line.plain, 'error: disk full');
      assert.equal(line.raw, '\x1b[31merror\x1b[0m: disk full');
      assert.equal(line.number, 1);
    }
  });

  it('stays within its capacity, dropping the oldest lines in chunks', () => {
    const buffer = new LogBuffer(100);
    for (let i = 1; i <= 1000; i++) buffer.add('stdout', `line ${i}`, i);
    assert.ok(buffer.size <= 100);
    const last = buffer.lines[buffer.lines.length - 1]!;
    assert.equal(last.number, 1000);
    assert.equal(buffer.dropped + buffer.size, 1000);
  });

  it('writes a merged download with job prefixes and end markers', () => {
    const buffer = new LogBuffer();
    buffer.add('stdout', 'one', 1, 'a');
    buffer.mark('── end of run output ──', 2, 'a');
    buffer.add('stderr', '\x1b[1mtwo\x1b[0m', 3, 'b');
    assert.equal(buffer.toText(), '[a] one\n[a] ── end of run output ──\n[b] two');
  });
});

describe('compileSearch and findMatches', () => {
  const buffer = new LogBuffer();
  for (const text of ['Connecting', 'ERROR: timeout', 'retry 1', 'error: refused'])
    buffer.add('stdout', text, 0);

  it('counts plain matches case-insensitively', () => {
    const matcher = compileSearch({ text: 'error', regex: false });
    assert.ok(matcher.ok);
    if (matcher.ok) assert.deepEqual(findMatches(buffer.lines, matcher.test), [1, 3]);
  });

  it('matches regular expressions and reports a bad one', () => {
    const matcher = compileSearch({ text: '^retry \\d$', regex: true });
    assert.ok(matcher.ok);
    if (matcher.ok) assert.deepEqual(findMatches(buffer.lines, matcher.test), [2]);
    const bad = compileSearch({ text: '(', regex: true });
    assert.equal(bad.ok, false);
  });

  it('matches nothing for an empty search', () => {
    const matcher = compileSearch({ text: '', regex: true });
    if (matcher.ok) assert.deepEqual(findMatches(buffer.lines, matcher.test), []);
  });
});
