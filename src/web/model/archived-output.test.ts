// The History tab's reading of archived output (docs/dashboard.md "Job drawer"): archives matched
// to runs by finished_at, the JSON lines of one archive decoded, and a hostile answer refused
// with a message instead of a throw the tab cannot show.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ArchiveEntryWire } from './api-types.js';
import { archivesByFinished, describeArchive, parseArchivedJsonl } from './archived-output.js';

const entry = (id: string, finished: string): ArchiveEntryWire => ({
  id,
  finished_at: finished,
  outcome: 'success',
  exit_code: 0,
  redacted: true,
  dropped_lines: 0,
  lines: 2,
});

void describe('archived output', () => {
  void it('matches archives by finished_at, the newest of two with one instant winning', () => {
    const map = archivesByFinished([
      entry('b', '2026-01-01T00:01:00+00:00'),
      entry('a', '2026-01-01T00:01:00+00:00'),
      entry('c', '2026-01-01T00:00:00+00:00'),
    ]);
    assert.equal(map.get('2026-01-01T00:01:00+00:00')?.id, 'b');
    assert.equal(map.get('2026-01-01T00:00:00+00:00')?.id, 'c');
    assert.equal(map.size, 2);
  });

  void it('decodes the header line and one {stream, line} per line', () => {
    const body = [
      '{"finished_at":"2026-01-01T00:00:10+00:00","outcome":"failure","exit_code":2,"redacted":true,"dropped_lines":4}',
      '{"stream":"stdout","line":"\\u001b[32mok\\u001b[0m\\n"}',
      '{"stream":"stderr","line":"boom"}',
      '',
    ].join('\n');
    const { header, lines } = parseArchivedJsonl(body);
    assert.deepEqual(header, {
      finished_at: '2026-01-01T00:00:10+00:00',
      outcome: 'failure',
      exit_code: 2,
      redacted: true,
      dropped_lines: 4,
    });
    assert.deepEqual(lines, [
      { stream: 'stdout', line: '\u001b[32mok\u001b[0m\n' },
      { stream: 'stderr', line: 'boom' },
    ]);
    assert.equal(
      describeArchive(header, lines.length),
      'failure · exit 2 · 2 lines · 4 not kept · secrets redacted',
    );
  });

  void it('refuses an empty, non-JSON or misshapen answer with a message', () => {
    const header =
      '{"finished_at":"2026-01-01T00:00:10+00:00","outcome":"success","exit_code":null,"redacted":false,"dropped_lines":0}';
    const cases: [string, RegExp][] = [
      ['', /the answer is empty/],
      ['<html>', /the header line is not JSON/],
      ['{"outcome":"maybe"}', /not an archive header/],
      [`${header}\n[1]`, /line 1 is not an object/],
      [`${header}\n{"stream":"stdin","line":"x"}`, /line 1 is not \{stream, line\}/],
    ];
    for (const [body, message] of cases) assert.throws(() => parseArchivedJsonl(body), message);
    assert.deepEqual(parseArchivedJsonl(header).lines, []);
  });
});
