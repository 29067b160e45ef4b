import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AnsiParser, PLAIN_STYLE, applySgr, paletteCss, stripAnsi } from './ansi.js';

describe('AnsiParser', () => {
  it('splits a line into styled segments and resets on 0', () => {
    const segments = new AnsiParser().parse('ok \x1b[1;31mFAIL\x1b[0m done');
    assert.deepEqual(
      segments.map((s) => [s.text, s.style.bold, s.style.fg]),
      [
        ['ok ', false, null],
        ['FAIL', true, { kind: 'palette', index: 1 }],
        [' done', false, null],
      ],
    );
  });

  it('keeps the style across lines of one stream until reset', () => {
    const parser = new AnsiParser();
    parser.parse('\x1b[32mgreen starts');
    const [next] = parser.parse('still green');
    assert.deepEqual(next!.style.fg, { kind: 'palette', index: 2 });
    parser.reset();
    assert.equal(parser.parse('plain')[0]!.style, PLAIN_STYLE);
  });

  it('reads bright, 256-colour and 24-bit colours, foreground and background', () => {
    const style = applySgr(PLAIN_STYLE, '93;48;5;208');
    assert.deepEqual(style.fg, { kind: 'palette', index: 11 });
    assert.deepEqual(style.bg, { kind: 'palette', index: 208 });
    const rgb = applySgr(PLAIN_STYLE, '38;2;10;20;30');
    assert.deepEqual(rgb.fg, { kind: 'rgb', r: 10, g: 20, b: 30 });
    assert.equal(applySgr(rgb, '39').fg, null);
  });

  it('ignores a malformed extended colour instead of misreading the codes after it', () => {
    const style = applySgr(PLAIN_STYLE, '38;5');
    assert.equal(style.fg, null);
    assert.equal(applySgr(PLAIN_STYLE, '38;2;300;0;0').fg, null);
  });

  it('drops cursor moves, OSC titles/links and control characters', () => {
    const line =
      '\x1b]0;title\x07\x1b[2K\x1b[1Gprogress\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\x00\x08 end\x1b';
    const segments = new AnsiParser().parse(line);
    assert.equal(segments.map((s) => s.text).join(''), 'progresslink end');
    assert.equal(stripAnsi(line), 'progresslink end');
  });

  it('merges neighbouring text of the same style', () => {
    assert.equal(new AnsiParser().parse('a\x1b[Kb').length, 1);
  });
});

describe('paletteCss', () => {
  it('maps the colour cube and the grey ramp', () => {
    assert.equal(paletteCss(16), 'rgb(0, 0, 0)');
    assert.equal(paletteCss(196), 'rgb(255, 0, 0)');
    assert.equal(paletteCss(232), 'rgb(8, 8, 8)');
    assert.equal(paletteCss(255), 'rgb(238, 238, 238)');
  });
});
