import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SseParser, type SseEvent, type SseStep } from './sse-parser.js';

const MIB = 1_048_576;

/** Feeds lines one by one, as `yacron2 logs` does, keeping the steps and the events. */
function feedLines(
  parser: SseParser,
  lines: readonly string[],
): { steps: SseStep['kind'][]; events: SseEvent[] } {
  const steps: SseStep['kind'][] = [];
  const events: SseEvent[] = [];
  for (const line of lines) {
    const step = parser.line(line);
    steps.push(step.kind);
    if (step.kind === 'event') events.push(step.event);
  }
  return { steps, events };
}

describe('SseParser.push (chunks, as the dashboard reads a stream)', () => {
  it('parses the job log events of the control API', () => {
    const parser = new SseParser(MIB);
    const events = parser.push(
      'event: line\ndata: {"stream": "stdout", "line": "hi"}\n\n: ping\n\nevent: end\ndata: {}\n\n',
    );
    assert.deepEqual(events, [
      { event: 'line', data: '{"stream": "stdout", "line": "hi"}' },
      { event: 'end', data: '{}' },
    ]);
  });

  it('completes events split anywhere across chunks, CRLF and lone CR included', () => {
    const text = 'event: line\r\ndata: a\r\ndata: b\r\n\r\nevent: end\rdata: {}\r\r';
    for (let cut = 0; cut <= text.length; cut++) {
      const parser = new SseParser(MIB);
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
    const parser = new SseParser(MIB);
    assert.deepEqual(parser.push('data: x\n\nevent: empty\n\n'), [{ event: 'message', data: 'x' }]);
  });

  it('drops an event over the bound and carries on with the next', () => {
    const parser = new SseParser(10);
    const events = parser.push(`data: ${'x'.repeat(20)}\n\ndata: ok\n\n`);
    assert.deepEqual(events, [{ event: 'message', data: 'ok' }]);
    assert.equal(parser.dropped, 1);
  });

  it('does not buffer an endless line without bound', () => {
    const parser = new SseParser(10);
    parser.push('data: ' + 'y'.repeat(50));
    assert.deepEqual(parser.push('\n\ndata: next\n\n'), [{ event: 'message', data: 'next' }]);
    assert.equal(parser.dropped, 1);
  });
});

describe('SseParser.line (lines, as yacron2 logs reads a stream)', () => {
  it('named events, joined data lines, pings and unknown fields ignored, CRLF', () => {
    const { steps, events } = feedLines(new SseParser(1000), [
      ': ping',
      'event: line',
      'data: {"stream": "stdout", "line": "a"}',
      '',
      'id: 7',
      'data:x',
      'data: y\r',
      '\r',
      '',
      'event: end',
      'data: {}',
      '',
    ]);
    assert.deepEqual(events, [
      { event: 'line', data: '{"stream": "stdout", "line": "a"}' },
      { event: 'message', data: 'x\ny' },
      { event: 'end', data: '{}' },
    ]);
    assert.deepEqual(steps, [
      'pending',
      'pending',
      'pending',
      'event',
      'pending',
      'pending',
      'pending',
      'event',
      'pending',
      'pending',
      'pending',
      'event',
    ]);
  });

  it('says overflow once when the data passes the bound, drops that event, then parses on', () => {
    const parser = new SseParser(10);
    const { steps, events } = feedLines(parser, [
      'data: 12345',
      'data: 67890',
      'data: more',
      '',
      'data: ok',
      '',
    ]);
    assert.deepEqual(steps, ['pending', 'overflow', 'pending', 'pending', 'pending', 'event']);
    assert.deepEqual(events, [{ event: 'message', data: 'ok' }]);
    assert.equal(parser.dropped, 1);
  });
});
