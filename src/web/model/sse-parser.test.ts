import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SseParser } from './sse-parser.js';

describe('SseParser', () => {
  it('parses the job log events of the control API', () => {
    const parser = new SseParser();
    const events = parser.push(
      'event: line\ndata: {"stream": "stdout", "line": "hi"}\n\n: ping\n\nevent: end\ndata: {}\n\n',
    );
    assert.deepEqual(events, [
      { event: 'line', data: '{"stream": "stdout", "line": "hi"}' },
      { event: 'end', data: '{}' },
    ]);
  });

  it('completes events split anywhere across chunks, CRLF included', () => {
    const text = 'event: line\r\ndata: a\r\ndata: b\r\n\r\nevent: end\rdata: {}\r\r';
    for (let cut = 0; cut <= text.length; cut++) {
      const parser = new SseParser();
      const events = [...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut))];
      assert.deepEqual(
        events,
        [
          { event: 'line', data: 'a\nb' },
          { event: 'end', data: '{}' },
        ],
        `cut at ${cut}`,
      );
    }
  });

  it('names unnamed events "message" and skips events without data', () => {
    const parser = new SseParser();
    assert.deepEqual(parser.push('data: x\n\nevent: empty\n\n'), [{ event: 'message', data: 'x' }]);
  });

  it('drops an event over the size limit and carries on with the next', () => {
    const parser = new SseParser({ maxEventChars: 10 });
    const events = parser.push(`data: ${'x'.repeat(20)}\n\ndata: ok\n\n`);
    assert.deepEqual(events, [{ event: 'message', data: 'ok' }]);
    assert.equal(parser.dropped, 1);
  });

  it('does not buffer an endless line without bound', () => {
    const parser = new SseParser({ maxEventChars: 10 });
    parser.push('data: ' + 'y'.repeat(50));
    assert.deepEqual(parser.push('\n\ndata: next\n\n'), [{ event: 'message', data: 'next' }]);
    assert.equal(parser.dropped, 1);
  });
});
